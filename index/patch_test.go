package index

import (
	"fmt"
	"testing"
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
			if v.Kind == KindNumber {
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
