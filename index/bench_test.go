package index

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nodesift/sift/extra"
)

// synthNodes is a small stand-in for inventory.Synthetic (which index cannot
// import): nodes named node00001... with Slurm-like extra data mixing
// low-cardinality numbers, strings, booleans, a per-rack number and a rare null.
func synthNodes(n int, seed uint64) []Node {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	width := max(5, len(strconv.Itoa(n)))
	archs := []string{"cascadelake", "skylake", "zen3"}
	feats := [][]string{{"cascade"}, {"cascade", "ib"}, {"skylake", "ib"}, {"gpu", "a100", "ib"}, {"bigmem"}}
	foos := []string{"bar", "bar", "baz", "blah", "qux"}
	nodes := make([]Node, n)
	buf := make([]byte, 0, n*150)
	for i := range nodes {
		nd := &nodes[i]
		nd.Name = fmt.Sprintf("node%0*d", width, i+1)
		nd.Rank = uint32(i)
		nd.Features = feats[r.IntN(len(feats))]
		if r.IntN(200) == 0 {
			continue
		}
		start := len(buf)
		buf = append(buf, `{"a":`...)
		buf = append(buf, []string{"1.23", "1.25", "2.5", "0.5", "1", "3.75"}[r.IntN(6)]...)
		buf = append(buf, `,"b":`...)
		buf = strconv.AppendBool(buf, r.IntN(2) == 0)
		buf = append(buf, `,"c":`...)
		buf = strconv.AppendInt(buf, int64(r.IntN(9)), 10)
		buf = append(buf, `,"foo":"`...)
		buf = append(buf, foos[r.IntN(len(foos))]...)
		buf = append(buf, `","zed":`...)
		buf = strconv.AppendInt(buf, int64(r.IntN(64)), 10)
		buf = append(buf, `,"arch":"`...)
		buf = append(buf, archs[r.IntN(len(archs))]...)
		buf = append(buf, `","rack":`...)
		buf = strconv.AppendInt(buf, int64(i/32+1), 10)
		buf = append(buf, `,"mem":`...)
		buf = strconv.AppendFloat(buf, float64(r.IntN(1<<20))/16, 'g', -1, 64)
		if r.IntN(100) == 0 {
			buf = append(buf, `,"maint":null`...)
		}
		buf = append(buf, '}')
		nd.Extra = buf[start:len(buf):len(buf)]
	}
	return nodes
}

var benchSizes = []int{1000, 10000, 100000, 1000000}

type fixture struct {
	nodes []Node
	s     *Snapshot
	ref   *naive // built by naive(), only for the benchmarks that use it
}

// naive returns the reference implementation over the fixture's nodes. It
// is built on first use: its per-node maps would otherwise sit in the heap
// of every benchmark and inflate the collector's share of their times.
func (f *fixture) naive() *naive {
	if f.ref == nil {
		f.ref = newNaive(ptrs(f.nodes))
	}
	return f.ref
}

var fixtures = map[int]*fixture{}

// fixtureFor builds the synthetic cluster of n nodes once per test binary,
// and only when a selected benchmark needs it.
func fixtureFor(n int) *fixture {
	f := fixtures[n]
	if f == nil {
		nodes := synthNodes(n, 1)
		s, _ := Build(nodes)
		f = &fixture{nodes: nodes, s: s}
		fixtures[n] = f
	}
	return f
}

func extraBytes(nodes []Node) int {
	n := 0
	for i := range nodes {
		n += len(nodes[i].Extra)
	}
	return n
}

func BenchmarkBuild(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := synthNodes(n, 1)
			b.ReportAllocs()
			b.SetBytes(int64(extraBytes(nodes)))
			var s *Snapshot
			for b.Loop() {
				s, _ = Build(nodes)
			}
			b.ReportMetric(float64(s.SizeBytes())/float64(n), "index-B/node")
		})
	}
}

type leafCase struct {
	name string
	key  string
	op   extra.Op
	o    Operand
}

var leafCases = []leafCase{
	{"number-range", "mem", extra.Lt, Operand{Raw: "20000", Num: 20000, NumOK: true}},
	{"number-eq", "a", extra.Eq, Operand{Raw: "1.25", Num: 1.25, NumOK: true}},
	{"number-rack-ge", "rack", extra.Ge, Operand{Raw: "777", Num: 777, NumOK: true}},
	{"string-eq", "foo", extra.Eq, Operand{Raw: "baz"}},
	{"bool", "b", extra.Eq, Operand{Raw: "true", Bool: true}},
}

func BenchmarkExtraLeaf(b *testing.B) {
	for _, n := range benchSizes {
		for _, c := range leafCases {
			b.Run(fmt.Sprintf("%s/nodes=%d", c.name, n), func(b *testing.B) {
				s := fixtureFor(n).s
				dst := make([]uint64, s.Words())
				b.ReportAllocs()
				for b.Loop() {
					s.ExtraLeaf(c.key, c.op, &c.o, dst)
				}
			})
			if n <= 100000 {
				b.Run(fmt.Sprintf("%s-naive/nodes=%d", c.name, n), func(b *testing.B) {
					ref := fixtureFor(n).naive()
					b.ReportAllocs()
					for b.Loop() {
						ref.extraLeaf(c.key, c.op, &c.o)
					}
				})
			}
		}
	}
}

func BenchmarkHostLeaf(b *testing.B) {
	for _, n := range benchSizes {
		width := max(5, len(strconv.Itoa(n)))
		for _, q := range []struct {
			name string
			lo   uint64
			hi   uint64
		}{{"range-10", 100, 109}, {"range-all", 1, uint64(n)}} {
			qs := []HostQuery{{Alpha: "node", Digits: width, Lo: q.lo, Hi: q.hi}}
			b.Run(fmt.Sprintf("%s/nodes=%d", q.name, n), func(b *testing.B) {
				s := fixtureFor(n).s
				dst := make([]uint64, s.Words())
				b.ReportAllocs()
				for b.Loop() {
					s.HostLeaf(qs, dst)
				}
			})
			if n <= 100000 {
				b.Run(fmt.Sprintf("%s-naive/nodes=%d", q.name, n), func(b *testing.B) {
					ref := fixtureFor(n).naive()
					b.ReportAllocs()
					for b.Loop() {
						ref.hostLeaf(qs)
					}
				})
			}
		}
	}
}

func BenchmarkPropertyLeaf(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s := fixtureFor(n).s
			dst := make([]uint64, s.Words())
			b.ReportAllocs()
			for b.Loop() {
				s.PropertyLeaf("ib", dst)
			}
		})
	}
}

// BenchmarkUpdate measures one-node SetExtra on a store whose overlay folds
// in the background as it grows; the leaf sub-benchmark measures a leaf over
// the snapshot the updates leave behind.
func BenchmarkUpdate(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("set-extra/nodes=%d", n), func(b *testing.B) {
			f := fixtureFor(n)
			nodes := f.nodes
			st := NewStore(f.s)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				nd := &nodes[(i*7919)%n]
				if _, err := st.SetExtra(nd.Name, nodes[(i*104729+1)%n].Extra); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.StopTimer()
			st.Compact()
		})
		// The writer's own cost: the overlay is compacted outside the timer
		// before it reaches the background-fold threshold.
		b.Run(fmt.Sprintf("set-extra-writer/nodes=%d", n), func(b *testing.B) {
			f := fixtureFor(n)
			nodes := f.nodes
			st := NewStore(f.s)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				nd := &nodes[(i*7919)%n]
				if _, err := st.SetExtra(nd.Name, nodes[(i*104729+1)%n].Extra); err != nil {
					b.Fatal(err)
				}
				i++
				if i%(foldAt-1) == 0 {
					b.StopTimer()
					st.Compact()
					b.StartTimer()
				}
			}
		})
		// A leaf over a snapshot carrying a 63-node overlay (just below the
		// fold threshold), against the same leaf without one.
		b.Run(fmt.Sprintf("leaf-with-overlay/nodes=%d", n), func(b *testing.B) {
			f := fixtureFor(n)
			st := NewStore(f.s)
			for i := 0; i < foldAt-1; i++ {
				st.SetExtra(f.nodes[(i*7919)%n].Name, f.nodes[i].Extra)
			}
			s := st.Snapshot()
			dst := make([]uint64, s.Words())
			c := leafCases[1]
			b.ReportAllocs()
			for b.Loop() {
				s.ExtraLeaf(c.key, c.op, &c.o, dst)
			}
		})
	}
}

// BenchmarkMillionNodes builds the 1M-node synthetic cluster and answers a
// 10-leaf mix over it; run alone under /usr/bin/time -v for peak RSS.
func BenchmarkMillionNodes(b *testing.B) {
	nodes := synthNodes(1_000_000, 1)
	s, err := Build(nodes)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]uint64, s.Words())
	acc := make([]uint64, s.Words())
	hq := []HostQuery{{Alpha: "node", Digits: 7, Lo: 1, Hi: 1_000_000}}
	b.ReportAllocs()
	for b.Loop() {
		for i := range acc {
			acc[i] = ^uint64(0)
		}
		for k := 0; k < 2; k++ {
			for _, c := range leafCases {
				s.ExtraLeaf(c.key, c.op, &c.o, dst)
				for i := range acc {
					acc[i] &= dst[i] | uint64(k)
				}
			}
		}
		s.HostLeaf(hq, dst)
	}
	b.ReportMetric(float64(s.SizeBytes())/1e6, "index-MB")
	b.ReportMetric(float64(s.SizeBytes())/float64(s.Len()), "index-B/node")
}

// BenchmarkFold is the background work behind foldAt updates: folding an
// overlay of that many changed nodes into fresh columns.
func BenchmarkFold(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			f := fixtureFor(n)
			st := NewStore(f.s)
			for i := 0; i < foldAt-1; i++ {
				st.SetExtra(f.nodes[(i*7919)%n].Name, f.nodes[(i*104729+1)%n].Extra)
			}
			s := st.Snapshot()
			b.ReportAllocs()
			for b.Loop() {
				fold(s)
			}
		})
	}
}
