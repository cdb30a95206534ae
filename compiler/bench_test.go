package compiler

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/bench/cputime"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

var benchSizes = []int{1000, 10000, 100000, 1000000}

// expr10 is the 10-leaf mixed expression of the budgets; expr3 the 3-leaf.
const (
	expr10 = "(a>=20&a<80&b=true&c!=3&foo<baz)|(zed>=50&zed<60&foo=bar)|(c=7&zed<10)"
	expr3  = "a>=20&b=true&foo=bar"
)

var benchExprs = []struct{ name, text string }{
	{"3leaf", expr3},
	{"10leaf", expr10},
	{"seed=a=1.23", "a=1.23"},
	{"seed=a!=1.23|foo!=blah", "a!=1.23|foo!=blah"},
	{"seed=b=200", "b=200"},
	{"seed=foo<baz", "foo<baz"},
	{"seed=(c<=0.0001&a=1.25)|zed=23.0", "(c<=0.0001&a=1.25)|zed=23.0"},
	{"seed=((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)", "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)"},
}

// syntheticNodes builds a deterministic cluster with the seed document's
// keys (a, b, c, foo, zed), some keys missing, some nodes without extra
// data, and a few features.
func syntheticNodes(n int) []index.Node {
	r := rand.New(rand.NewPCG(42, uint64(n)))
	foos := []string{"bar", "baz", "qux", "alpha", "omega", "node", "blah", "zz"}
	feats := []string{"gpu", "ib", "bigmem", "ssd"}
	nodes := make([]index.Node, n)
	for i := range nodes {
		nd := index.Node{Name: "node" + strconv.Itoa(i), Rank: uint32(i)}
		if r.IntN(50) != 0 {
			b := []byte{'{'}
			add := func(k, v string) {
				if len(b) > 1 {
					b = append(b, ',')
				}
				b = append(b, '"')
				b = append(b, k...)
				b = append(b, '"', ':')
				b = append(b, v...)
			}
			add("a", strconv.FormatFloat(float64(r.IntN(10000))/100, 'f', -1, 64))
			if r.IntN(10) != 0 {
				add("b", strconv.FormatBool(r.IntN(2) == 0))
			}
			add("c", strconv.Itoa(r.IntN(10)))
			add("foo", strconv.Quote(foos[r.IntN(len(foos))]))
			if r.IntN(5) != 0 {
				add("zed", strconv.Itoa(r.IntN(100)))
			}
			nd.Extra = append(b, '}')
		}
		for _, f := range feats {
			if r.IntN(4) == 0 {
				nd.Features = append(nd.Features, f)
			}
		}
		nodes[i] = nd
	}
	return nodes
}

type benchCluster struct {
	nodes []index.Node
	snap  *index.Snapshot
}

var (
	clustersMu sync.Mutex
	clusters   = map[int]*benchCluster{}
)

// cluster returns the synthetic cluster of n nodes, built once per process.
func cluster(b *testing.B, n int) *benchCluster {
	clustersMu.Lock()
	defer clustersMu.Unlock()
	if c, ok := clusters[n]; ok {
		return c
	}
	nodes := syntheticNodes(n)
	s, err := index.Build(nodes)
	if err != nil {
		b.Fatal(err)
	}
	c := &benchCluster{nodes: nodes, snap: s}
	clusters[n] = c
	return c
}

// reference evaluates tree on every node into want and returns the time
// spent in ast.Eval alone. The reference evaluator's inputs are typed
// chunk by chunk and dropped: kept for every node they would make the heap,
// and with it the garbage collector's cost in the VM's timed loop, many
// times what the index needs.
func (c *benchCluster) reference(tree ast.Node, want *roaring.Bitmap) time.Duration {
	want.Clear()
	var spent time.Duration
	chunk := make([]*ast.Facts, 0, 10000)
	for lo := 0; lo < len(c.nodes); lo += cap(chunk) {
		chunk = chunk[:0]
		for i := lo; i < min(lo+cap(chunk), len(c.nodes)); i++ {
			chunk = append(chunk, facts(&c.nodes[i]))
		}
		start := time.Now()
		for i, f := range chunk {
			if ast.Eval(tree, f) {
				want.Add(uint32(lo + i))
			}
		}
		spent += time.Since(start)
	}
	return spent
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(Slurm, expr10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileCached(b *testing.B) {
	c := NewCache(128)
	if _, err := c.Compile(Slurm, expr10); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Compile(Slurm, expr10)
	}
}

// BenchmarkRun runs each expression over the synthetic cluster with a
// reused Machine, checks the result against the reference evaluator, and
// reports the reference evaluator's time per pass over the same nodes
// (ref-ns/op) and how many times faster the VM is (speedup).
func BenchmarkRun(b *testing.B) {
	for _, e := range benchExprs {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("expr=%s/nodes=%d", e.name, n), func(b *testing.B) {
				c := cluster(b, n)
				tree, err := slurm.Parse(e.text)
				if err != nil {
					b.Fatal(err)
				}
				p, err := Compile(Slurm, e.text)
				if err != nil {
					b.Fatal(err)
				}
				want := roaring.New()
				var spent time.Duration
				passes := 0
				for passes == 0 || spent < 200*time.Millisecond {
					spent += c.reference(tree, want)
					passes++
				}
				refNs := float64(spent.Nanoseconds()) / float64(passes)
				m := vm.NewMachine()
				if got := m.Run(p, c.snap); !got.Equals(want) {
					b.Fatalf("vm.Run gives %d nodes, the reference %d", got.GetCardinality(), want.GetCardinality())
				}
				runtime.GC()
				b.ReportAllocs()
				// The thread's CPU time beside the wall time: on a shared
				// machine other processes inflate the second, hardly the first.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0, cpuOK := cputime.Thread()
				b.ResetTimer()
				for b.Loop() {
					m.Run(p, c.snap)
				}
				if cpu1, _ := cputime.Thread(); cpuOK {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
				vmNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(refNs, "ref-ns/op")
				b.ReportMetric(refNs/vmNs, "speedup")
				b.ReportMetric(float64(want.GetCardinality()), "matches")
			})
		}
	}
}

// BenchmarkMatchNode evaluates the 10-leaf expression on one node at a
// time, as node updates do.
func BenchmarkMatchNode(b *testing.B) {
	c := cluster(b, 10000)
	p, err := Compile(Slurm, expr10)
	if err != nil {
		b.Fatal(err)
	}
	want := vm.Run(p, c.snap)
	for id := range uint32(len(c.nodes)) {
		if p.MatchNode(c.snap, id) != want.Contains(id) {
			b.Fatalf("MatchNode(%d) disagrees with vm.Run", id)
		}
	}
	b.ReportAllocs()
	id := uint32(0)
	for b.Loop() {
		p.MatchNode(c.snap, id)
		id = (id + 1) % uint32(len(c.nodes))
	}
}
