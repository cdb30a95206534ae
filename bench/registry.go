package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/index"
)

// DefaultSizes are the node counts of a run without --nodes: small enough
// that every default suite finishes in well under two minutes on two cores.
// 1M nodes is available with --nodes.
var DefaultSizes = []int{1000, 10000, 100000}

// Registry returns every suite, in the order they are reported.
func Registry() []Suite {
	var out []Suite
	for _, d := range []struct {
		data       Dataset
		three, ten ast.Node
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
	out = append(out,
		Suite{Name: "ingest", Sizes: DefaultSizes, Setup: ingest},
		Suite{Name: "hostlist/range", Sizes: DefaultSizes, Setup: hostRange},
		Suite{Name: "property", Sizes: DefaultSizes, Setup: property},
	)
	return out
}

// Constraint trees of the evaluate suites, written as the Slurm text in each
// comment. The synthetic ones use the keys of Slurm's documentation example.
var (
	// (a=1.23&b=true)|zed=23
	synthetic3 = or(and(cmp("a", ast.OpEq, "1.23"), cmp("b", ast.OpEq, "true")), cmp("zed", ast.OpEq, "23"))
	// ((c<=4&a=1.25)|zed>=10)&(foo=bar|foo=baz|b=true)&(arch=x86_64|gpu_mem_gb>=32)&rack<32&os!=rhel7
	synthetic10 = and(
		or(and(cmp("c", ast.OpLe, "4"), cmp("a", ast.OpEq, "1.25")), cmp("zed", ast.OpGe, "10")),
		or(cmp("foo", ast.OpEq, "bar"), cmp("foo", ast.OpEq, "baz"), cmp("b", ast.OpEq, "true")),
		or(cmp("arch", ast.OpEq, "x86_64"), cmp("gpu_mem_gb", ast.OpGe, "32")),
		cmp("rack", ast.OpLt, "32"),
		cmp("os", ast.OpNe, "rhel7"),
	)
	// (cpus>=40&gpus=4)|arch=cascade
	cirrus3 = or(and(cmp("cpus", ast.OpGe, "40"), cmp("gpus", ast.OpEq, "4")), cmp("arch", ast.OpEq, "cascade"))
	// ((cpus>=36&mem_gb>200)|gpus>=2)&(arch=cascade|arch=skylake|arch=broadwell)&(gpu=GV100GL|gpu=none)&edgen=false&rack!=r9
	cirrus10 = and(
		or(and(cmp("cpus", ast.OpGe, "36"), cmp("mem_gb", ast.OpGt, "200")), cmp("gpus", ast.OpGe, "2")),
		or(cmp("arch", ast.OpEq, "cascade"), cmp("arch", ast.OpEq, "skylake"), cmp("arch", ast.OpEq, "broadwell")),
		or(cmp("gpu", ast.OpEq, "GV100GL"), cmp("gpu", ast.OpEq, "none")),
		cmp("edgen", ast.OpEq, "false"),
		cmp("rack", ast.OpNe, "r9"),
	)
	// (cores>=32&ib=true)|gpus>=2
	grid3 = or(and(cmp("cores", ast.OpGe, "32"), cmp("ib", ast.OpEq, "true")), cmp("gpus", ast.OpGe, "2"))
	// ((cores>=16&mem_gb>=128)|gpus>=1)&(vendor=Intel|vendor=AMD)&(ssd=true|disks>=2)&exotic=false&arch=x86_64&clock_ghz>2.0
	grid10 = and(
		or(and(cmp("cores", ast.OpGe, "16"), cmp("mem_gb", ast.OpGe, "128")), cmp("gpus", ast.OpGe, "1")),
		or(cmp("vendor", ast.OpEq, "Intel"), cmp("vendor", ast.OpEq, "AMD")),
		or(cmp("ssd", ast.OpEq, "true"), cmp("disks", ast.OpGe, "2")),
		cmp("exotic", ast.OpEq, "false"),
		cmp("arch", ast.OpEq, "x86_64"),
		cmp("clock_ghz", ast.OpGt, "2.0"),
	)
)

func cmp(k string, op ast.CmpOp, v string) ast.Node {
	return &ast.Compare{Start: -1, Key: k, Op: op, Value: v}
}
func and(xs ...ast.Node) ast.Node { return &ast.And{Start: -1, X: xs} }
func or(xs ...ast.Node) ast.Node  { return &ast.Or{Start: -1, X: xs} }

// inventory is a dataset built at one size. One is cached per dataset (the
// most recent size): suites share it, building 100k nodes is the slow part
// of setting up, and a 1M-node inventory is too large to keep several of.
type inventory struct {
	n     int
	nodes []index.Node
	snap  *index.Snapshot
	envs  []map[string]any
}

var (
	invMu    sync.Mutex
	invCache = map[string]*inventory{}
)

func loadInventory(d Dataset, n int, withEnvs bool) (*inventory, error) {
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
		inv = &inventory{n: n, nodes: nodes, snap: snap}
		invCache[d.Name] = inv
	}
	if withEnvs && inv.envs == nil {
		inv.envs = exprEnvs(inv.nodes)
	}
	return inv, nil
}

// evaluateSlurm times evaluating one Slurm constraint over a dataset: sift's
// bitmap engine against the per-node reference walk and expr-lang/expr.
func evaluateSlurm(d Dataset, tree ast.Node) func(int) (*Case, error) {
	return func(n int) (*Case, error) {
		inv, err := loadInventory(d, n, true)
		if err != nil {
			return nil, err
		}
		sift, err := newBitmapEngine(tree, inv.snap)
		if err != nil {
			return nil, err
		}
		ref, err := newReferenceEngine(tree, inv.snap)
		if err != nil {
			return nil, err
		}
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
				return sameNodes(sift.out, map[string][]uint64{"reference": ref.out, "expr": ex.out})
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
	nodes := syntheticNodes(n, 1)
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

// hostRange times the hostlist constraint node[1-N/2] without expansion
// against a per-node check of each hostname.
func hostRange(n int) (*Case, error) {
	inv, err := loadInventory(Synthetic, n, false)
	if err != nil {
		return nil, err
	}
	width := len(strconv.Itoa(n))
	q := []index.HostQuery{{Alpha: "node", Digits: width, Lo: 1, Hi: uint64(n / 2)}}
	out := make([]uint64, inv.snap.Words())
	ref := make([]uint64, inv.snap.Words())
	op := func() { inv.snap.HostLeaf(q, out) }
	walk := func() {
		clear(ref)
		for id := uint32(0); id < inv.snap.IDBound(); id++ {
			nd, ok := inv.snap.Node(id)
			if !ok {
				continue
			}
			alpha, digits := index.SplitHost(nd.Name)
			if alpha != q[0].Alpha || len(digits) != q[0].Digits {
				continue
			}
			if v, err := strconv.ParseUint(digits, 10, 64); err == nil && v >= q[0].Lo && v <= q[0].Hi {
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
				return fmt.Errorf("node[1-%d] matched %d nodes", n/2, got)
			}
			return sameNodes(out, map[string][]uint64{"reference": ref})
		},
	}, nil
}

// property times a feature constraint (gpu) against a per-node scan.
func property(n int) (*Case, error) {
	inv, err := loadInventory(Synthetic, n, false)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, inv.snap.Words())
	ref := make([]uint64, inv.snap.Words())
	op := func() { inv.snap.PropertyLeaf("gpu", out) }
	walk := func() {
		clear(ref)
		for id := uint32(0); id < inv.snap.IDBound(); id++ {
			nd, ok := inv.snap.Node(id)
			if ok && (nd.Name == "gpu" || slices.Contains(nd.Features, "gpu")) {
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
			return sameNodes(out, map[string][]uint64{"reference": ref})
		},
	}, nil
}
