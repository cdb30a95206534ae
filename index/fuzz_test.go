package index

import (
	"encoding/binary"
	"testing"
)

// FuzzIndexVsNaive builds a random node set from the input (a seed for the
// generator, plus up to two raw extra documents given verbatim) and checks
// every leaf, then a few updates, against the naive reference.
func FuzzIndexVsNaive(f *testing.F) {
	f.Add(uint64(1), uint16(50), []byte(`{"a":1.00001,"a":"x"}`), []byte(`{"a":1}`))
	f.Add(uint64(2), uint16(400), []byte(`{"mem":9007199254740993}`), []byte(`{"b":true,"c":null}`))
	f.Add(uint64(3), uint16(3), []byte(`{"a\u0000b":"\u0000"}`), []byte(`nope`))
	f.Fuzz(func(t *testing.T, seed uint64, size uint16, doc1, doc2 []byte) {
		g := newGen(seed)
		nodes := g.nodes(int(size % 600))
		if len(nodes) > 1 {
			nodes[0].Extra = doc1
			nodes[len(nodes)/2].Extra = doc2
		}
		s, err := Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstNaive(t, g, s, newNaive(ptrs(nodes)), 20)
		st := NewStore(s)
		m := model(ptrs(nodes))
		used := map[string]bool{}
		for _, n := range nodes {
			used[n.Name] = true
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], seed)
		for i := 0; i < int(b[0]%8); i++ {
			_, m = step(t, g, st, m, used)
		}
		checkAgainstNaive(t, g, st.Snapshot(), newNaive(m), 5)
		checkAgainstNaive(t, g, st.Compact(), newNaive(m), 5)
	})
}
