package vm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

// expr is a tiny expression tree for tests: the vm package cannot import
// the compiler, so tests emit code for it themselves.
type expr struct {
	op    string // and, or, not, true, false, extra, range, prop, ranks, hosts
	kids  []*expr
	leaf  ExtraLeaf
	upper ExtraLeaf // a range's upper bound; leaf is its lower bound
	name  string
	ranks []index.RankRange
	hosts []index.HostQuery
}

// emit generates code for e with short-circuit jumps, as the compiler does.
func (e *expr) emit(b *Builder) {
	switch e.op {
	case "and", "or":
		if len(e.kids) == 0 {
			b.Const(e.op == "and")
			return
		}
		var labels []Label
		e.kids[0].emit(b)
		for i := 1; i < len(e.kids); i++ {
			k := e.kids[i]
			if e.op == "and" {
				labels = append(labels, b.JumpIfEmpty())
			} else {
				labels = append(labels, b.JumpIfFull())
			}
			// Operands go in pairs where they can, as the compiler emits
			// them, so that and2 and or2 meet every other instruction.
			pair := i+1 < len(e.kids) && (e.op == "or" || (k.op != "not" && e.kids[i+1].op != "not"))
			switch {
			case pair:
				k.emit(b)
				e.kids[i+1].emit(b)
				if e.op == "and" {
					b.And2()
				} else {
					b.Or2()
				}
				i++
			case e.op == "and" && k.op == "not":
				k.kids[0].emit(b)
				b.AndNot()
			case e.op == "and":
				k.emit(b)
				b.And()
			default:
				k.emit(b)
				b.Or()
			}
		}
		for _, l := range labels {
			b.Bind(l)
		}
	case "not":
		e.kids[0].emit(b)
		b.Not()
	case "true", "false":
		b.Const(e.op == "true")
	case "extra":
		b.Extra(e.leaf.Key, e.leaf.Op, e.leaf.Operand)
	case "range":
		b.ExtraRange(e.leaf.Key, index.Range{Lower: e.leaf.Op, Upper: e.upper.Op, Lo: e.leaf.Operand, Hi: e.upper.Operand})
	case "prop":
		b.Property(e.name)
	case "ranks":
		b.Ranks(e.ranks)
	case "hosts":
		b.Hosts(e.name, e.hosts)
	}
}

// eval is the plain per-node meaning of e.
func (e *expr) eval(s *index.Snapshot, id uint32) bool {
	n, ok := s.Node(id)
	if !ok {
		return false
	}
	switch e.op {
	case "and":
		for _, k := range e.kids {
			if !k.eval(s, id) {
				return false
			}
		}
		return true
	case "or":
		for _, k := range e.kids {
			if k.eval(s, id) {
				return true
			}
		}
		return false
	case "not":
		return !e.kids[0].eval(s, id)
	case "true":
		return true
	case "extra":
		return e.leaf.Operand.Match(s.ExtraValue(id, e.leaf.Key), e.leaf.Op)
	case "range":
		// The and of the two comparisons, each by the plain rule.
		v := s.ExtraValue(id, e.leaf.Key)
		return e.leaf.Operand.Match(v, e.leaf.Op) && e.upper.Operand.Match(v, e.upper.Op)
	case "prop":
		if n.Name == e.name {
			return true
		}
		for _, f := range n.Features {
			if f == e.name {
				return true
			}
		}
	case "ranks":
		for _, r := range e.ranks {
			if n.Rank >= r.Lo && n.Rank <= r.Hi {
				return true
			}
		}
	case "hosts":
		for _, q := range e.hosts {
			if hostMatchesSlow(n.Name, q) {
				return true
			}
		}
	}
	return false
}

// hostMatchesSlow is HostQuery's meaning written the long way.
func hostMatchesSlow(name string, q index.HostQuery) bool {
	if q.Exact {
		return name == q.Name
	}
	if !strings.HasPrefix(name, q.Alpha) || q.Digits == 0 {
		return false
	}
	rest := name[len(q.Alpha):]
	if len(rest) != q.Digits {
		return false
	}
	var v uint64
	for _, c := range []byte(rest) {
		if c < '0' || c > '9' {
			return false
		}
		if v > (1<<64-1-uint64(c-'0'))/10 {
			return false
		}
		v = v*10 + uint64(c-'0')
	}
	return v >= q.Lo && v <= q.Hi
}

func (e *expr) program(t testing.TB) *Program {
	t.Helper()
	var b Builder
	e.emit(&b)
	p, err := b.Program()
	if err != nil {
		t.Fatalf("building program: %v", err)
	}
	return p
}

var testKeys = []string{"a", "b", "c", "foo"}
var testExtras = []string{
	`{"a": 1.23, "b": true, "c": 0, "foo": "bar", "zed": 23}`,
	`{"a": 2, "b": false, "foo": "baz"}`,
	`{"a": "1.23", "c": null}`,
	`{"c": [1], "foo": "bar"}`,
	`not json`,
	`[1,2]`,
	`{}`,
	``,
}

func randNodes(r *rand.Rand, n int) []index.Node {
	nodes := make([]index.Node, n)
	for i := range nodes {
		nd := index.Node{Name: fmt.Sprintf("n%0*d", 1+r.IntN(3), i), Rank: uint32(i)}
		if x := testExtras[r.IntN(len(testExtras))]; x != "" {
			nd.Extra = []byte(x)
		}
		if r.IntN(2) == 0 {
			nd.Features = append(nd.Features, "gpu")
		}
		if r.IntN(3) == 0 {
			nd.Features = append(nd.Features, "big")
		}
		nodes[i] = nd
	}
	return nodes
}

func randExpr(r *rand.Rand, depth int) *expr {
	if depth <= 0 || r.IntN(3) == 0 {
		switch r.IntN(9) {
		case 0:
			return &expr{op: []string{"true", "false"}[r.IntN(2)]}
		case 1, 2:
			return &expr{op: "prop", name: []string{"gpu", "big", "n1", "none"}[r.IntN(4)]}
		case 3:
			lo := uint32(r.IntN(40))
			return &expr{op: "ranks", ranks: []index.RankRange{{Lo: lo, Hi: lo + uint32(r.IntN(10))}}}
		case 4:
			lo := uint64(r.IntN(40))
			return &expr{op: "hosts", name: "n[...]", hosts: []index.HostQuery{
				{Alpha: "n", Digits: 1 + r.IntN(3), Lo: lo, Hi: lo + uint64(r.IntN(20))},
				{Exact: true, Name: "n7"},
			}}
		default:
			raw := []string{"1.23", "2", "true", "bar", "baz", "0", "x"}[r.IntN(7)]
			o := index.Operand{Raw: raw}
			switch raw {
			case "1.23":
				o.Num, o.NumOK, o.Bool = 1.23, true, true
			case "2":
				o.Num, o.NumOK, o.Bool = 2, true, true
			case "0":
				o.NumOK = true
			case "true", "bar", "baz", "x":
				o.Bool = true
			}
			return &expr{op: "extra", leaf: ExtraLeaf{Key: testKeys[r.IntN(len(testKeys))], Op: extra.Op(r.IntN(6)), Operand: o}}
		}
	}
	switch r.IntN(5) {
	case 0:
		return &expr{op: "not", kids: []*expr{randExpr(r, depth-1)}}
	default:
		e := &expr{op: []string{"and", "or"}[r.IntN(2)]}
		for range r.IntN(4) {
			e.kids = append(e.kids, randExpr(r, depth-1))
		}
		return e
	}
}

func TestRunAgreesWithPerNodeEvaluation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := NewMachine()
	for iter := range 300 {
		nodes := randNodes(r, 1+r.IntN(150))
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			e := randExpr(r, 4)
			p := e.program(t)
			got := m.Run(p, s)
			want := roaring.New()
			for id := range uint32(len(nodes)) {
				if e.eval(s, id) {
					want.Add(id)
				}
				if p.MatchNode(s, id) != e.eval(s, id) {
					t.Fatalf("iter %d: MatchNode(%d) = %v, want %v\n%s", iter, id, !e.eval(s, id), e.eval(s, id), p.Disassemble())
				}
			}
			if !got.Equals(want) {
				t.Fatalf("iter %d: Run = %v, want %v\n%s", iter, got, want, p.Disassemble())
			}
			if pooled := Run(p, s); !pooled.Equals(want) {
				t.Fatalf("iter %d: vm.Run = %v, want %v", iter, pooled, want)
			}
			steps, ex := m.Explain(p, s)
			if !ex.Equals(want) || len(steps) == 0 || len(steps) > p.Len() {
				t.Fatalf("iter %d: Explain = %v with %d steps, want %v", iter, ex, len(steps), want)
			}
			if last := steps[len(steps)-1]; last.Count != int(want.GetCardinality()) {
				t.Fatalf("iter %d: last step count %d, want %d", iter, last.Count, want.GetCardinality())
			}
		}
	}
}

func TestShortCircuitSkipsRemainingOperands(t *testing.T) {
	s, err := index.Build([]index.Node{{Name: "n1", Features: []string{"gpu"}}, {Name: "n2"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		e         *expr
		wantSteps int
		want      []uint32
	}{
		{"and with an empty operand stops", &expr{op: "and", kids: []*expr{{op: "prop", name: "none"}, {op: "prop", name: "gpu"}, {op: "prop", name: "gpu"}}}, 2, nil},
		{"or with every node stops", &expr{op: "or", kids: []*expr{{op: "true"}, {op: "prop", name: "gpu"}}}, 2, []uint32{0, 1}},
		{"and that stays non-empty runs to the end", &expr{op: "and", kids: []*expr{{op: "prop", name: "gpu"}, {op: "prop", name: "n1"}}}, 4, []uint32{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, got := NewMachine().Explain(tt.e.program(t), s)
			if len(steps) != tt.wantSteps {
				t.Errorf("executed %d steps, want %d: %+v", len(steps), tt.wantSteps, steps)
			}
			if !got.Equals(roaring.BitmapOf(tt.want...)) {
				t.Errorf("result %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNotIsComplementWithinLiveNodes(t *testing.T) {
	nodes := []index.Node{{Name: "a"}, {Name: "b", Features: []string{"x"}}, {Name: "c"}}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	p := (&expr{op: "not", kids: []*expr{{op: "prop", name: "x"}}}).program(t)
	if got := Run(p, s); !got.Equals(roaring.BitmapOf(0, 2)) {
		t.Errorf("not x = %v, want {0,2}", got)
	}
	if p.MatchNode(s, 3) {
		t.Error("MatchNode of an id beyond the snapshot = true, want false")
	}
}

func TestBuilderRejectsMalformedPrograms(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *Builder)
	}{
		{"empty", func(b *Builder) {}},
		{"and without operands", func(b *Builder) { b.Const(true); b.And() }},
		{"two results", func(b *Builder) { b.Const(true); b.Const(false) }},
		{"unbound jump", func(b *Builder) { b.Const(true); b.JumpIfEmpty() }},
		{"jump landing at another depth", func(b *Builder) {
			b.Const(true)
			l := b.JumpIfEmpty()
			b.Const(true)
			b.Bind(l)
			b.And()
		}},
		{"not on an empty stack", func(b *Builder) { b.Not(); b.Const(true) }},
		{"bind twice", func(b *Builder) {
			b.Const(true)
			l := b.JumpIfFull()
			b.Bind(l)
			b.Bind(l)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Builder
			tt.build(&b)
			if _, err := b.Program(); !errors.Is(err, ErrInvalidProgram) {
				t.Errorf("Program() error = %v, want ErrInvalidProgram", err)
			}
		})
	}
}

func TestZeroProgramMatchesNothing(t *testing.T) {
	s, err := index.Build([]index.Node{{Name: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	var p Program
	if got := Run(&p, s); !got.IsEmpty() || p.MatchNode(s, 0) {
		t.Errorf("zero program matched %v", got)
	}
}

func TestDisassembleShowsOperands(t *testing.T) {
	e := &expr{op: "and", kids: []*expr{
		{op: "extra", leaf: ExtraLeaf{Key: "a", Op: extra.Le, Operand: index.Operand{Raw: "1.5", Num: 1.5, NumOK: true, Bool: true}}},
		{op: "or", kids: []*expr{{op: "prop", name: "gpu"}, {op: "not", kids: []*expr{{op: "ranks", ranks: []index.RankRange{{Lo: 0, Hi: 3}, {Lo: 7, Hi: 7}}}}}}},
		{op: "hosts", name: "n[1-4]", hosts: []index.HostQuery{{Alpha: "n", Digits: 1, Lo: 1, Hi: 4}}},
	}}
	want := `0000 extra         "a" <= "1.5" (num=1.5 bool=true)
0001 jump_if_empty 0009
0002 property      "gpu"
0003 jump_if_full  0007
0004 ranks         0-3,7
0005 not
0006 or
0007 hosts         "n[1-4]"
0008 and2
`
	if got := e.program(t).Disassemble(); got != want {
		t.Errorf("Disassemble() =\n%s\nwant\n%s", got, want)
	}
}

func TestRunAllocatesOnlyItsResult(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s, err := index.Build(randNodes(r, 5000))
	if err != nil {
		t.Fatal(err)
	}
	e := &expr{op: "and", kids: []*expr{{op: "prop", name: "gpu"}, {op: "not", kids: []*expr{{op: "prop", name: "big"}}}}}
	p := e.program(t)
	m := NewMachine()
	m.Run(p, s)
	result := testing.AllocsPerRun(50, func() { roaring.FromDense(make([]uint64, s.Words()), true) })
	if got := testing.AllocsPerRun(50, func() { m.Run(p, s) }); got > result+1 {
		t.Errorf("Run allocates %v times, the result alone %v", got, result)
	}
	if got := testing.AllocsPerRun(50, func() { p.MatchNode(s, 17) }); got != 0 {
		t.Errorf("MatchNode allocates %v times, want 0", got)
	}
}

func TestPooledRunIsSafeForConcurrentCallers(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	s, err := index.Build(randNodes(r, 3000))
	if err != nil {
		t.Fatal(err)
	}
	var progs []*Program
	var wants []*roaring.Bitmap
	for range 8 {
		p := randExpr(r, 4).program(t)
		progs = append(progs, p)
		wants = append(wants, NewMachine().Run(p, s))
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 200 {
				k := (i + g) % len(progs)
				if got := Run(progs[k], s); !got.Equals(wants[k]) {
					done <- fmt.Errorf("goroutine %d: program %d gave %v, want %v", g, k, got, wants[k])
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestRunOnAnEmptySnapshot(t *testing.T) {
	s, err := index.Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := (&expr{op: "or", kids: []*expr{{op: "not", kids: []*expr{{op: "prop", name: "x"}}}, {op: "true"}}}).program(t)
	if got := Run(p, s); !got.IsEmpty() {
		t.Errorf("Run on no nodes = %v", got)
	}
	if steps, got := NewMachine().Explain(p, s); !got.IsEmpty() || len(steps) == 0 {
		t.Errorf("Explain on no nodes = %v, %d steps", got, len(steps))
	}
}

// randClusteredExpr is randExpr over a cluster of n nodes whose leaves are
// mostly runs of ranks (ids) anywhere in it: sets confined to a few words,
// at either end or in the middle, so that windows narrow, widen and empty.
func randClusteredExpr(r *rand.Rand, depth, n int) *expr {
	if depth <= 0 || r.IntN(3) == 0 {
		switch r.IntN(6) {
		case 0:
			return &expr{op: []string{"true", "false"}[r.IntN(2)]}
		case 1:
			return &expr{op: "prop", name: []string{"gpu", "big", "none"}[r.IntN(3)]}
		default:
			var rs []index.RankRange
			for range 1 + r.IntN(2) {
				lo := uint32(r.IntN(n))
				rs = append(rs, index.RankRange{Lo: lo, Hi: lo + uint32(r.IntN(1+r.IntN(n)))})
			}
			return &expr{op: "ranks", ranks: rs}
		}
	}
	if r.IntN(5) == 0 {
		return &expr{op: "not", kids: []*expr{randClusteredExpr(r, depth-1, n)}}
	}
	e := &expr{op: []string{"and", "or"}[r.IntN(2)]}
	for range r.IntN(5) {
		e.kids = append(e.kids, randClusteredExpr(r, depth-1, n))
	}
	return e
}

func TestRunAgreesOnClusteredSets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := NewMachine()
	for iter := range 60 {
		n := 1 + r.IntN(3000)
		nodes := randNodes(r, n)
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			e := randClusteredExpr(r, 4, n)
			p := e.program(t)
			want := roaring.New()
			for id := range uint32(n) {
				if e.eval(s, id) {
					want.Add(id)
				}
			}
			if got := m.Run(p, s); !got.Equals(want) {
				t.Fatalf("iter %d (%d nodes): Run = %v, want %v\n%s", iter, n, got, want, p.Disassemble())
			}
			steps, ex := m.Explain(p, s)
			if !ex.Equals(want) || steps[len(steps)-1].Count != int(want.GetCardinality()) {
				t.Fatalf("iter %d (%d nodes): Explain = %v, want %v", iter, n, ex, want)
			}
		}
	}
}

// propertyCases are clusters whose property leaves take every path: dense
// properties answered from the snapshot's words, a sparse one kept only as
// a bitmap ("rare", a few nodes in one place), a node named like a
// property, and nodes changed since the snapshot was built.
func propertyCases(t *testing.T, r *rand.Rand) []*index.Snapshot {
	t.Helper()
	n := 1 + r.IntN(5000)
	nodes := randNodes(r, n)
	at := r.IntN(n)
	for id := at; id < min(n, at+1+r.IntN(40)); id++ {
		nodes[id].Features = append(slices.Clone(nodes[id].Features), "rare")
	}
	plain, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	named := slices.Clone(nodes)
	named[r.IntN(n)].Name = "gpu"
	withName, err := index.Build(named)
	if err != nil {
		t.Fatal(err)
	}
	st := index.NewStore(plain)
	if _, err := st.SetFeatures(nodes[r.IntN(n)].Name, []string{"big", "rare"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetFeatures(nodes[r.IntN(n)].Name, nil); err != nil {
		t.Fatal(err)
	}
	return []*index.Snapshot{plain, withName, st.Snapshot()}
}

func TestPropertyLeavesAgreeOnReusedScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	m := NewMachine()
	for iter := range 30 {
		for _, s := range propertyCases(t, r) {
			n := int(s.IDBound())
			for range 10 {
				prop := &expr{op: "prop", name: []string{"gpu", "big", "rare", "none"}[r.IntN(4)]}
				e := prop
				if r.IntN(3) > 0 {
					e = &expr{op: []string{"and", "or"}[r.IntN(2)], kids: []*expr{randClusteredExpr(r, 3, n), prop}}
				}
				p := e.program(t)
				want := roaring.New()
				for id := range uint32(n) {
					if e.eval(s, id) {
						want.Add(id)
					}
				}
				got := m.Run(p, s)
				if !got.Equals(want) {
					t.Fatalf("iter %d (%d nodes): Run = %v, want %v\n%s", iter, n, got, want, p.Disassemble())
				}
				// A result may share the snapshot's words: changing it
				// must leave the snapshot and later results alone.
				got.Flip(0, uint64(n))
				if again := m.Run(p, s); !again.Equals(want) {
					t.Fatalf("iter %d: after changing a result, Run = %v, want %v", iter, again, want)
				}
				if steps, ex := m.Explain(p, s); !ex.Equals(want) || steps[len(steps)-1].Count != int(want.GetCardinality()) {
					t.Fatalf("iter %d: Explain = %v, want %v", iter, ex, want)
				}
			}
		}
	}
}

func TestOneDensePropertyIsAnsweredWithoutCopying(t *testing.T) {
	s, err := index.Build(randNodes(rand.New(rand.NewPCG(7, 8)), 100000))
	if err != nil {
		t.Fatal(err)
	}
	p := (&expr{op: "prop", name: "gpu"}).program(t)
	m := NewMachine()
	m.Run(p, s)
	// The result's containers and headers only: its 12.5 KB of words are
	// the snapshot's, shared copy-on-write.
	if got := testing.AllocsPerRun(20, func() { m.Run(p, s) }); got > 8 {
		t.Errorf("Run allocates %v times", got)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		m.Run(p, s)
	}
	runtime.ReadMemStats(&after)
	if b := (after.TotalAlloc - before.TotalAlloc) / 100; b > 1024 {
		t.Errorf("Run allocates %d bytes, want the result's headers only", b)
	}
	// Explaining it names the leaf's source text as any other step does.
	var b Builder
	b.Source(2, 7)
	b.Property("gpu")
	sp, err := b.Program()
	if err != nil {
		t.Fatal(err)
	}
	if steps, _ := m.Explain(sp, s); len(steps) != 1 || steps[0].Source != (Span{2, 7}) {
		t.Errorf("Explain steps = %+v, want one with source [2, 7)", steps)
	}
	// Concurrent callers each change their own result; the race detector
	// and the comparison see any write reaching the shared containers.
	want := m.Run(p, s)
	done := make(chan error)
	for range 4 {
		go func() {
			for range 50 {
				got := Run(p, s)
				if !got.Equals(want) {
					done <- fmt.Errorf("Run = %d nodes, want %d", got.GetCardinality(), want.GetCardinality())
					return
				}
				got.Flip(0, 100000)
				got.Add(3)
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestSourceBelongsToTheNextLeafOnly(t *testing.T) {
	var b Builder
	b.Source(0, 3)
	b.Property("gpu")
	b.Property("ib") // no Source: none
	b.Source(5, 9)
	b.And() // not a leaf: the range waits for the next leaf
	b.Ranks([]index.RankRange{{Lo: 1, Hi: 2}})
	b.Source(-1, 4) // synthesized: ignored
	b.Property("x")
	b.Or()
	b.Or()
	p, err := b.Program()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]Span{0: {0, 3}, 3: {5, 9}}
	for pc := 0; pc < p.Len(); pc++ {
		got, ok := p.Source(pc)
		if w, has := want[pc]; ok != has || got != w {
			t.Errorf("Source(%d) = %v, %v; want %v, %v", pc, got, ok, w, has)
		}
	}
}
