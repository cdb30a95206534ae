package index

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nodesift/sift/extra"
)

// TestLeavesOverValuesRisingWithTheIDMatchNaive checks the leaves of a
// column whose ids ascend with its values (a load figure that grows with
// the node id), where the patches between a checkpoint and the exact
// boundary write runs of consecutive ids a word at a time, against the
// per-node reference: with every node carrying the key, and with nodes
// lacking it or holding a string that break the runs into pieces; over the
// whole cluster and over random windows of words (ExtraLeafIn), and as
// the lower bound of a range (ExtraRangeLeafIn).
func TestLeavesOverValuesRisingWithTheIDMatchNaive(t *testing.T) {
	const n = 5000
	ops := []extra.Op{extra.Eq, extra.Ne, extra.Lt, extra.Le, extra.Gt, extra.Ge}
	r := rand.New(rand.NewPCG(5, 8))
	for _, holes := range []int{0, 97, 7} {
		t.Run(fmt.Sprintf("holes=%d", holes), func(t *testing.T) {
			nodes := make([]Node, n)
			for i := range nodes {
				nodes[i].Name = "node" + strconv.Itoa(i)
				v := i * 1000 / n // 1,000 distinct values: more than there are checkpoints
				switch {
				case holes > 0 && i%holes == 3:
					nodes[i].Extra = []byte(`{"other":1}`)
				case holes > 0 && i%holes == 5:
					nodes[i].Extra = []byte(`{"load":"high"}`)
				default:
					nodes[i].Extra = fmt.Appendf(nil, `{"load":0.%03d}`, v)
				}
			}
			s, err := Build(nodes)
			if err != nil {
				t.Fatal(err)
			}
			if p := &s.b.cols["load"].num; !p.ascending || len(p.ck) == 0 {
				t.Fatalf("the load column has ascending=%t and %d checkpoints: the runs are not exercised", p.ascending, len(p.ck))
			}
			ref := newNaive(ptrs(nodes))
			dst := make([]uint64, s.Words())
			for _, op := range ops {
				// Every value a node has, some between them, and past both ends.
				for v := -3.0; v <= 1003; v += 2.5 {
					num := v / 1000
					o := Operand{Raw: strconv.FormatFloat(num, 'g', -1, 64), Num: num, NumOK: true, Bool: true}
					s.ExtraLeaf("load", op, &o, dst)
					want := ref.extraLeaf("load", op, &o)
					sameWords(t, fmt.Sprintf("load %v %s", op, o.Raw), dst, want)
					sameInWindow(t, r, s, "load", op, &o, want)
					if op == extra.Gt || op == extra.Ge {
						up := v + 2.5*float64(r.IntN(200))
						hi := Operand{Raw: strconv.FormatFloat(up/1000, 'g', -1, 64), Num: up / 1000, NumOK: true, Bool: true}
						sameRange(t, r, s, ref, "load", &Range{Lower: op, Upper: []extra.Op{extra.Lt, extra.Le}[r.IntN(2)], Lo: o, Hi: hi})
					}
				}
			}
		})
	}
}
