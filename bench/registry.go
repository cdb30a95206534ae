package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
)

// DefaultSizes are the node counts of a run without --nodes: small enough
// that every default suite finishes in well under two minutes on two cores.
// 1M nodes is available with --nodes.
var DefaultSizes = []int{1000, 10000, 100000}

// Constraints of the evaluate suites, per dataset, in Slurm --extra syntax.
// The synthetic ones use the keys of Slurm's documentation example.
var (
	synthetic3  = "(a=1.23&b=true)|zed=23"
	synthetic10 = "((c<=4&a=1.25)|zed>=10)&(foo=bar|foo=baz|b=true)&(arch=cascadelake|gpu_mem_gb>=32)&rack<32&os!=rhel7"
	cirrus3     = "(cpus>=40&gpus=4)|arch=cascade"
	cirrus10    = "((cpus>=36&mem_gb>200)|gpus>=2)&(arch=cascade|arch=skylake|arch=broadwell)&(gpu=GV100GL|gpu=none)&edgen=false&rack!=r9"
	grid3       = "(cores>=32&ib=true)|gpus>=2"
	grid10      = "((cores>=16&mem_gb>=128)|gpus>=1)&(vendor=Intel|vendor=AMD)&(ssd=true|disks>=2)&exotic=false&arch=x86_64&clock_ghz>2.0"
)

// Registry returns every suite, in the order they are reported.
func Registry() []Suite {
	out := []Suite{
		{Name: "compile/slurm/10-leaf", SizeFree: true, Setup: compileSlurm(synthetic10)},
	}
	for _, d := range []struct {
		data       Dataset
		three, ten string
	}{
		{Synthetic, synthetic3, synthetic10},
		{Cirrus, cirrus3, cirrus10},
		{Grid5000, grid3, grid10},
	} {
		suffix := ""
		if d.data.Name != Synthetic.Name {
			suffix = "/" + d.data.Name
		}
		out = append(out,
			Suite{Name: "evaluate/slurm/3-leaf" + suffix, Sizes: DefaultSizes, Setup: evaluateSlurm(d.data, d.three)},
			Suite{Name: "evaluate/slurm/10-leaf" + suffix, Sizes: DefaultSizes, Setup: evaluateSlurm(d.data, d.ten)},
		)
	}
	return append(out,
		Suite{Name: "ingest", Sizes: DefaultSizes, Setup: ingest},
		Suite{Name: "hostlist/range", Sizes: DefaultSizes, Setup: hostRange},
		Suite{Name: "property", Sizes: DefaultSizes, Setup: property},
		Suite{Name: "select/linear/1000-node-job", Sizes: []int{10000, 100000}, Setup: selectLinear.setup},
		Suite{Name: "select/cons_tres/64-node-job", Sizes: []int{1000, 10000}, Setup: selectConsTres.setup},
		Suite{Name: "will-run/linear/64-node-job", Sizes: []int{10000}, Setup: willRunLinear.setup},
	)
}

// compileSlurm times turning Slurm text into a program (parse, optimize,
// generate) against expr-lang/expr compiling the baseline's translation.
func compileSlurm(text string) func(int) (*Case, error) {
	return func(int) (*Case, error) {
		tree, err := slurm.Parse(text)
		if err != nil {
			return nil, err
		}
		src, err := ExprSource(tree, true)
		if err != nil {
			return nil, err
		}
		slurmFn := expr.Function("slurm", func(...any) (any, error) { return false, nil }, new(func(any, int) bool))
		var compileErr error
		keep := func(err error) {
			if err != nil && compileErr == nil {
				compileErr = err
			}
		}
		return &Case{
			Op: func() {
				n, err := slurm.Parse(text)
				if err == nil {
					_, err = compiler.CompileAST(n, nil)
				}
				keep(err)
			},
			Baselines: []Baseline{{Name: "expr", Op: func() {
				_, err := expr.Compile(src, expr.Env(map[string]any{}), expr.AllowUndefinedVariables(), expr.AsBool(), slurmFn)
				keep(err)
			}}},
			Verify: func() error { return compileErr },
		}, nil
	}
}

// builtInventory is a dataset built at one size. One is cached per dataset (the
// most recent size): suites share it, building 100k nodes is the slow part
// of setting up, and a 1M-node inventory is too large to keep several of.
type builtInventory struct {
	n     int
	nodes []index.Node
	snap  *index.Snapshot
	facts []ast.Facts
	envs  []map[string]any
}

var (
	invMu    sync.Mutex
	invCache = map[string]*builtInventory{}
)

func loadInventory(d Dataset, n int, baselines bool) (*builtInventory, error) {
	invMu.Lock()
	defer invMu.Unlock()
	inv := invCache[d.Name]
	if inv == nil || inv.n != n {
		delete(invCache, d.Name)
		nodes, err := d.Nodes(n)
		if err != nil {
			return nil, err
		}
		snap, err := index.Build(nodes)
		if err != nil {
			return nil, err
		}
		inv = &builtInventory{n: n, nodes: nodes, snap: snap}
		invCache[d.Name] = inv
	}
	if baselines && inv.envs == nil {
		inv.facts = nodeFacts(inv.nodes)
		inv.envs = exprEnvs(inv.nodes)
	}
	return inv, nil
}

// evaluateSlurm times evaluating one Slurm constraint over a dataset: sift's
// compiled program on the VM against the per-node reference evaluator and
// expr-lang/expr.
func evaluateSlurm(d Dataset, text string) func(int) (*Case, error) {
	return func(n int) (*Case, error) {
		tree, err := slurm.Parse(text)
		if err != nil {
			return nil, err
		}
		inv, err := loadInventory(d, n, true)
		if err != nil {
			return nil, err
		}
		sift, err := newSiftEngine(tree, inv.snap)
		if err != nil {
			return nil, err
		}
		ref := newReferenceEngine(tree, inv.facts)
		ex, err := newExprEngine(tree, inv.envs)
		if err != nil {
			return nil, err
		}
		var exprErr error
		return &Case{
			Op: sift.Run,
			Baselines: []Baseline{
				{Name: "reference", Op: ref.Run},
				{Name: "expr", Op: func() {
					if err := ex.Run(); err != nil && exprErr == nil {
						exprErr = err
					}
				}},
			},
			Verify: func() error {
				if exprErr != nil {
					return exprErr
				}
				sift.Run()
				ref.Run()
				if err := ex.Run(); err != nil {
					return err
				}
				return sameNodes(sift.words(inv.snap.IDBound()), map[string][]uint64{"reference": ref.out, "expr": ex.out})
			},
		}, nil
	}
}

// sameNodes reports which baseline's node set differs from sift's.
func sameNodes(sift []uint64, baselines map[string][]uint64) error {
	for name, w := range baselines {
		if !slices.Equal(sift, w) {
			return fmt.Errorf("sift matched %d nodes, %s %d: answers differ", popcount(sift), name, popcount(w))
		}
	}
	return nil
}

// ingest times building a snapshot (parsing every node's extra JSON) against
// encoding/json decoding the same documents into maps.
func ingest(n int) (*Case, error) {
	nodes, err := Synthetic.Nodes(n)
	if err != nil {
		return nil, err
	}
	var size int64
	for i := range nodes {
		size += int64(len(nodes[i].Extra))
	}
	var snap *index.Snapshot
	var buildErr error
	decoded := 0
	op := func() { snap, buildErr = index.Build(nodes) }
	decode := func() {
		decoded = 0
		for i := range nodes {
			var m map[string]any
			if nodes[i].Extra != nil && json.Unmarshal(nodes[i].Extra, &m) == nil {
				decoded++
			}
		}
	}
	return &Case{
		Op:        op,
		Bytes:     size,
		Baselines: []Baseline{{Name: "encoding/json", Op: decode}},
		Verify: func() error {
			op()
			decode()
			if buildErr != nil {
				return buildErr
			}
			with := 0
			for id := uint32(0); id < snap.IDBound(); id++ {
				if snap.HasExtra(id) {
					with++
				}
			}
			if snap.Len() != n || with != decoded {
				return fmt.Errorf("snapshot has %d nodes, %d with extra data; encoding/json decoded %d", snap.Len(), with, decoded)
			}
			return nil
		},
	}, nil
}

// hostRange times the hostlist constraint node[1-N/2] (zero-padded like the
// synthetic names), answered from the index without expanding it, against
// looking every node's name up in the parsed list (hostlist's Find).
func hostRange(n int) (*Case, error) {
	inv, err := loadInventory(Synthetic, n, false)
	if err != nil {
		return nil, err
	}
	first, _ := inv.snap.Node(0)
	alpha, digits := index.SplitHost(first.Name)
	hl := alpha + "[" + string(appendPadded(nil, 1, len(digits))) + "-" + string(appendPadded(nil, uint64(n/2), len(digits))) + "]"
	list, err := hostlist.Parse(hostlist.Flux, hl)
	if err != nil {
		return nil, err
	}
	var qs []index.HostQuery
	for _, q := range list.Queries() {
		qs = append(qs, index.HostQuery{Exact: q.Exact, Name: q.Name, Alpha: q.Alpha, Digits: q.Digits, Lo: q.Lo, Hi: q.Hi})
	}
	out := make([]uint64, inv.snap.Words())
	ref := make([]uint64, inv.snap.Words())
	op := func() { inv.snap.HostLeaf(qs, out) }
	walk := func() {
		clear(ref)
		for id := uint32(0); id < inv.snap.IDBound(); id++ {
			if nd, ok := inv.snap.Node(id); ok && list.Find(nd.Name) >= 0 {
				ref[id>>6] |= 1 << (id & 63)
			}
		}
	}
	return &Case{
		Op:        op,
		Baselines: []Baseline{{Name: "reference", Op: walk}},
		Verify: func() error {
			op()
			walk()
			if got := popcount(out); got != n/2 {
				return fmt.Errorf("%s matched %d nodes", hl, got)
			}
			return sameNodes(out, map[string][]uint64{"reference": ref})
		},
	}, nil
}

// property times a feature constraint (gpu) compiled and run on the VM
// against the per-node reference evaluator.
func property(n int) (*Case, error) {
	inv, err := loadInventory(Synthetic, n, true)
	if err != nil {
		return nil, err
	}
	tree := &ast.Property{Start: -1, Name: "gpu"}
	sift, err := newSiftEngine(tree, inv.snap)
	if err != nil {
		return nil, err
	}
	ref := newReferenceEngine(tree, inv.facts)
	return &Case{
		Op:        sift.Run,
		Baselines: []Baseline{{Name: "reference", Op: ref.Run}},
		Verify: func() error {
			sift.Run()
			ref.Run()
			return sameNodes(sift.words(inv.snap.IDBound()), map[string][]uint64{"reference": ref.out})
		},
	}, nil
}
