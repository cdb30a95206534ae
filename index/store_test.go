package index

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/nodesift/sift/extra"
)

// model is the plain state a store should hold: nodes by id, nil for holes.
type model []*Node

func (m model) find(name string) int {
	for id, n := range m {
		if n != nil && n.Name == name {
			return id
		}
	}
	return -1
}

func (m model) names() []string {
	var out []string
	for _, n := range m {
		if n != nil {
			out = append(out, n.Name)
		}
	}
	return out
}

// step applies one random update to st and m, returning the new snapshot.
func step(t *testing.T, g *gen, st *Store, m model, used map[string]bool) (*Snapshot, model) {
	return stepOps(t, g, st, m, used, 10)
}

// stepOps is step drawing from the first ops kinds of update: 5 draws
// SetExtra only.
func stepOps(t *testing.T, g *gen, st *Store, m model, used map[string]bool, ops int) (*Snapshot, model) {
	t.Helper()
	m = append(model(nil), m...)
	names := m.names()
	pick := func() string {
		if len(names) == 0 || g.r.IntN(20) == 0 {
			return "no-such-node"
		}
		return names[g.r.IntN(len(names))]
	}
	var s *Snapshot
	var err error
	var wantErr error
	switch op := g.r.IntN(ops); {
	case op < 5:
		name := pick()
		raw := g.extra()
		s, err = st.SetExtra(name, raw)
		if id := m.find(name); id >= 0 {
			n := *m[id]
			n.Extra = raw
			m[id] = &n
		} else {
			wantErr = ErrUnknownNode
		}
	case op < 7:
		name := pick()
		var fs []string
		for i := g.r.IntN(3); i > 0; i-- {
			fs = append(fs, genFeats[g.r.IntN(len(genFeats))])
		}
		s, err = st.SetFeatures(name, fs)
		if id := m.find(name); id >= 0 {
			n := *m[id]
			n.Features = fs
			m[id] = &n
		} else {
			wantErr = ErrUnknownNode
		}
	case op < 8:
		name := pick()
		s, err = st.RemoveNode(name)
		if id := m.find(name); id >= 0 {
			m[id] = nil
			delete(used, name)
		} else {
			wantErr = ErrUnknownNode
		}
	default:
		n := g.node(used)
		if len(names) > 0 && g.r.IntN(10) == 0 {
			n.Name = names[0]
			wantErr = ErrDuplicateNode
		}
		s, err = st.AddNode(n)
		if wantErr == nil {
			m = append(m, &n)
		}
	}
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("got error %v, want %v", err, wantErr)
		}
		return st.Snapshot(), m
	}
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

func TestSnapshotsAnswerAsOfTheirGenerationAcrossUpdates(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		g := newGen(seed)
		nodes := g.nodes([]int{0, 50, 400, 2000}[seed%4])
		if seed%2 == 1 {
			for i := range nodes {
				nodes[i].Rank = uint32(i)
			}
		}
		used := map[string]bool{}
		for _, n := range nodes {
			used[n.Name] = true
		}
		s0, err := Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		st := NewStore(s0)
		m := model(ptrs(nodes))
		type rec struct {
			s *Snapshot
			m model
		}
		var hist []rec
		gen := s0.Generation()
		for i := 0; i < 300; i++ {
			var s *Snapshot
			s, m = stepOps(t, g, st, m, used, []int{10, 5}[seed%2])
			if s.Generation() < gen {
				t.Fatalf("generation went back from %d to %d", gen, s.Generation())
			}
			gen = s.Generation()
			hist = append(hist, rec{s, m})
			if i%97 == 96 {
				c := st.Compact()
				if c.Generation() != gen || c.ov.size() != 0 {
					t.Fatalf("Compact: generation %d, overlay %d; want %d, 0", c.Generation(), c.ov.size(), gen)
				}
				hist = append(hist, rec{c, m})
			}
		}
		hist = append(hist, rec{st.Compact(), m})
		for i, h := range hist {
			t.Run(fmt.Sprintf("seed=%d/step=%d", seed, i), func(t *testing.T) {
				checkAgainstNaive(t, g, h.s, newNaive(h.m), 5)
			})
		}
	}
}

func TestUpdateGenerationsIncreaseByOne(t *testing.T) {
	s, _ := Build([]Node{{Name: "a"}, {Name: "b"}})
	st := NewStore(s)
	steps := []func() (*Snapshot, error){
		func() (*Snapshot, error) { return st.SetExtra("a", []byte(`{"x":1}`)) },
		func() (*Snapshot, error) { return st.SetFeatures("b", []string{"ib"}) },
		func() (*Snapshot, error) { return st.AddNode(Node{Name: "c"}) },
		func() (*Snapshot, error) { return st.RemoveNode("a") },
	}
	for i, f := range steps {
		s, err := f()
		if err != nil {
			t.Fatal(err)
		}
		if s.Generation() != uint64(i+2) || st.Snapshot() != s {
			t.Fatalf("step %d: generation %d, current %v", i, s.Generation(), st.Snapshot() == s)
		}
	}
	if id, ok := st.Snapshot().ID("c"); !ok || id != 2 {
		t.Fatalf("added node got id %d, %v; want 2", id, ok)
	}
	if _, ok := st.Snapshot().ID("a"); ok {
		t.Fatal("removed node still has an id")
	}
	if st.Snapshot().IDBound() != 3 || st.Snapshot().Len() != 2 {
		t.Fatalf("IDBound %d Len %d, want 3 2", st.Snapshot().IDBound(), st.Snapshot().Len())
	}
}

// Readers keep querying old and new snapshots while one writer updates; run
// with -race.
func TestConcurrentReadersWhileWriterUpdates(t *testing.T) {
	g := newGen(7)
	nodes := g.nodes(500)
	s0, _ := Build(nodes)
	st := NewStore(s0)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Operand{Raw: "a", Num: 1, NumOK: true}
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := st.Snapshot()
				dst := make([]uint64, s.Words())
				s.ExtraLeaf("a", extra.Ge, &o, dst)
				s.PropertyLeaf("ib", dst)
				s.HostLeaf([]HostQuery{{Alpha: "n", Digits: 1, Lo: 0, Hi: 9}}, dst)
				s.RankLeaf([]RankRange{{0, 10}}, dst)
				_ = s.KeyStats("a")
				s0.ExtraLeaf("a", extra.Lt, &o, make([]uint64, s0.Words()))
			}
		}()
	}
	used := map[string]bool{}
	for _, n := range nodes {
		used[n.Name] = true
	}
	m := model(ptrs(nodes))
	for i := 0; i < 400; i++ {
		_, m = step(t, g, st, m, used)
	}
	close(stop)
	wg.Wait()
	checkAgainstNaive(t, g, st.Compact(), newNaive(m), 20)
}
