package compiler

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// TestProgramsFollowNodeUpdates runs programs on snapshots published by
// index.Store after random updates (extra data, features, added and removed
// nodes) and checks them against the reference on the nodes as they are now.
func TestProgramsFollowNodeUpdates(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	data := make([]byte, 4000)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	b := &byteSource{data: data}
	nodes := genNodes(b)
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	st := index.NewStore(s)
	current := map[string]index.Node{}
	for _, n := range nodes {
		current[n.Name] = n
	}
	names := func() []string {
		var out []string
		for name := range current {
			out = append(out, name)
		}
		return out
	}
	added := 0
	for step := range 300 {
		list := names()
		name := list[r.IntN(len(list))]
		n := current[name]
		switch r.IntN(4) {
		case 0:
			n.Extra = genExtra(b)
			if n.Extra == nil {
				n.Extra = []byte("{}")
			}
			s, err = st.SetExtra(name, n.Extra)
		case 1:
			n.Features = []string{[]string{"gpu", "ib", "big"}[r.IntN(3)]}
			s, err = st.SetFeatures(name, n.Features)
		case 2:
			if len(current) > 1 {
				delete(current, name)
				s, err = st.RemoveNode(name)
				if err != nil {
					t.Fatalf("step %d: RemoveNode(%s): %v", step, name, err)
				}
				break
			}
			fallthrough
		default:
			added++
			n = index.Node{Name: "new" + strconv.Itoa(added), Extra: genExtra(b)}
			s, err = st.AddNode(n)
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if _, present := current[name]; n.Name != name || present {
			current[n.Name] = n
		}
		text := slurm.Format(genSlurm(b, 2))
		tree, err := slurm.Parse(text)
		if err != nil {
			continue
		}
		p, err := CompileFor(Slurm, text, s)
		if err != nil {
			t.Fatalf("step %d: Compile(%q): %v", step, text, err)
		}
		got := vm.Run(p, s)
		if int(got.GetCardinality()) > len(current) {
			t.Fatalf("step %d: %q matched %d nodes of %d", step, text, got.GetCardinality(), len(current))
		}
		for name, n := range current {
			id, ok := s.ID(name)
			if !ok {
				t.Fatalf("step %d: node %s missing from the snapshot", step, name)
			}
			n.Rank = id
			want := ast.Eval(tree, facts(&n))
			if got.Contains(id) != want || p.MatchNode(s, id) != want {
				t.Fatalf("step %d: %q on %s (extra %q): vm.Run %v, MatchNode %v, want %v",
					step, text, name, n.Extra, got.Contains(id), p.MatchNode(s, id), want)
			}
		}
	}
}
