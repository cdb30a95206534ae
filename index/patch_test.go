package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/nodesift/sift/extra"
)

// foldByRebuild is fold's plain path: every touched column rebuilt from its
// old values and the changes, never patched.
func foldByRebuild(s *Snapshot, key string) *column {
	changes := s.ov.latest()
	changed := make([]uint64, (int(s.bound)+63)/64)
	for _, e := range changes {
		changed[e.id>>6] |= 1 << (e.id & 63)
	}
	cb := newColBuilder(s.bound)
	if c := s.b.cols[key]; c != nil {
		c.feed(cb, changed, len(changes))
	}
	for _, e := range changes {
		if v, ok := e.kv.get(key); ok && e.n != nil {
			if v.Kind == extra.KindNumber {
				cb.addLateNum(e.id, v.Num)
			} else {
				cb.addValue(e.id, v)
			}
		}
	}
	return cb.finish(s.bound, (int(s.bound)+63)/64)
}

// A patched fold must hold every node's value exactly as a rebuild does,
// and its leaves must match the naive evaluator.
func TestFoldPatchMatchesRebuild(t *testing.T) {
	patched := 0
	for seed := uint64(1); seed <= 12; seed++ {
		n := []int{64, 300, 2000}[seed%3]
		nodes := synthNodes(n, seed)
		s0, err := Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		st := NewStore(s0)
		g := newGen(seed)
		m := model(ptrs(nodes))
		for i := 0; i < foldAt-1; i++ {
			nd := nodes[(i*7919)%n]
			extra := nodes[(i*104729+int(seed))%n].Extra
			switch i % 17 {
			case 3:
				extra = g.extra() // new values, NaN-free but of any type
			case 5:
				extra = nil
			case 7:
				extra = []byte(`{"a":null,"b":[1],"c":"x"}`)
			}
			if _, err := st.SetExtra(nd.Name, extra); err != nil {
				t.Fatal(err)
			}
			id := (i * 7919) % n
			nn := *m[id]
			nn.Extra = extra
			m[id] = &nn
		}
		s := st.Snapshot()
		changes := s.ov.latest()
		changed := make([]uint64, s.b.words)
		lates := map[string][]late{}
		for _, e := range changes {
			changed[e.id>>6] |= 1 << (e.id & 63)
			if e.n != nil {
				for _, kv := range e.kv {
					lates[kv.key] = append(lates[kv.key], late{e.id, kv.v})
				}
			}
		}
		for key, old := range s.b.cols {
			c, ok := old.patch(lates[key], changed, s.bound, s.b.words)
			if !ok {
				continue
			}
			patched++
			want := foldByRebuild(s, key)
			for id := uint32(0); id < s.bound; id++ {
				if got, w := c.value(id), want.value(id); fmt.Sprint(got) != fmt.Sprint(w) {
					t.Fatalf("seed %d key %q id %d: patched %+v, rebuilt %+v", seed, key, id, got, w)
				}
			}
		}
		checkAgainstNaive(t, g, st.Compact(), newNaive(m), 200)
	}
	if patched == 0 {
		t.Fatal("no fold took the patch path")
	}
}

// A fold whose changes give a key to most of the first ids switches its
// builder to dense mode after feeding it the old column's ref lists; the
// column must come out exactly as in ref mode.
func TestFoldSwitchingToDenseMatchesRefMode(t *testing.T) {
	nodes := synthNodes(3000, 9)
	s, err := Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	const changes = 1500
	changed := make([]uint64, s.Words())
	for id := range uint32(changes) {
		changed[id>>6] |= 1 << (id & 63)
	}
	for _, key := range []string{"a", "foo", "mem", "b"} {
		r := rand.New(rand.NewPCG(uint64(len(key)), 3))
		var vals []extra.Value
		for range changes {
			switch k := r.IntN(10); {
			case k < 2: // numbers do not count towards the switch
				vals = append(vals, extra.Value{Kind: extra.KindNumber, Num: float64(r.IntN(5000)) / 8})
			case k < 8:
				vals = append(vals, extra.Value{Kind: extra.KindString, Str: fmt.Sprint(r.IntN(40))})
			case k < 9:
				vals = append(vals, extra.Value{Kind: extra.KindBool, Bool: r.IntN(2) == 0})
			default:
				vals = append(vals, extra.Value{Kind: extra.KindUnusable})
			}
		}
		dense, refs := newColBuilder(s.bound), newColBuilder(s.bound)
		refs.count = math.MinInt / 2 // never switches
		for _, cb := range []*colBuilder{dense, refs} {
			s.b.cols[key].feed(cb, changed, changes)
			for id, v := range vals {
				if v.Kind == extra.KindNumber {
					cb.addLateNum(uint32(id), v.Num)
				} else {
					cb.addValue(uint32(id), v)
				}
			}
		}
		if dense.dense == nil {
			t.Fatalf("%s: builder did not switch to dense", key)
		}
		words := s.Words()
		got, want := dense.finish(s.bound, words), refs.finish(s.bound, words)
		if err := sameColumn(got, want, s.bound); err != nil {
			t.Fatalf("%s: dense and ref-mode folds differ: %v", key, err)
		}
	}
}

// sameColumn reports how two columns differ in what they hold: every id's
// value, the distinct values of each type, and the ids of each value. A
// fold in ref mode may list one value's ids out of id order (old ids
// first, then changed ones); leaves do not depend on that order.
func sameColumn(a, b *column, bound uint32) error {
	for id := range bound {
		if va, vb := a.value(id), b.value(id); va != vb && !(va.Num != va.Num && vb.Num != vb.Num) {
			return fmt.Errorf("node %d: %+v vs %+v", id, va, vb)
		}
	}
	if !reflect.DeepEqual(a.nums, b.nums) || !reflect.DeepEqual(a.strs, b.strs) || !reflect.DeepEqual(a.bools, b.bools) {
		return fmt.Errorf("distinct values differ")
	}
	idsOf := func(p *postings, start []uint32) [][]uint32 {
		var out [][]uint32
		for k := 0; k+1 < len(start); k++ {
			out = append(out, slices.Sorted(slices.Values(p.ids[start[k]:start[k+1]])))
		}
		return out
	}
	if !reflect.DeepEqual(idsOf(&a.num, a.numStart), idsOf(&b.num, b.numStart)) ||
		!reflect.DeepEqual(idsOf(&a.str, a.strStart), idsOf(&b.str, b.strStart)) ||
		!reflect.DeepEqual(idsOf(&a.boolP, a.boolStart), idsOf(&b.boolP, b.boolStart)) {
		return fmt.Errorf("ids by value differ")
	}
	if !reflect.DeepEqual(a.nan, b.nan) || !reflect.DeepEqual(a.unusable, b.unusable) {
		return fmt.Errorf("NaN or unusable ids differ")
	}
	return nil
}
