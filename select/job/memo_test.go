package job

import (
	"reflect"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
)

// TestShapeCoversTheRequest fails when Request gains a field: it must then
// join Shape if a plugin's choice of nodes may read it, else the list of
// fields Shape leaves out.
func TestShapeCoversTheRequest(t *testing.T) {
	left := map[string]bool{"ID": true, "Required": true, "Excluded": true, "RequiredSet": true, "ExcludedSet": true,
		"TimeLimit": true, "Priority": true, "PreemptCandidates": true, "PreemptSuspend": true, "PreemptAll": true, "Constraints": true, "Completing": true}
	shape := map[string]bool{}
	st := reflect.TypeFor[Shape]()
	for i := range st.NumField() {
		shape[st.Field(i).Name] = true
	}
	rt := reflect.TypeFor[Request]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch {
		case left[f.Name] && shape[f.Name]:
			t.Errorf("Request.%s is both in Shape and left out", f.Name)
		case !left[f.Name] && !shape[f.Name]:
			t.Errorf("Request.%s is neither in Shape nor left out", f.Name)
		case shape[f.Name]:
			if sf, _ := st.FieldByName(f.Name); sf.Type != f.Type {
				t.Errorf("Shape.%s has another type than Request's", f.Name)
			}
		}
	}
	if len(shape)+len(left) != rt.NumField() {
		t.Errorf("Shape has %d fields and %d are left out; Request has %d", len(shape), len(left), rt.NumField())
	}
}

// TestShapeOfRequestsNamingNodes: a request with a node list, excluded
// nodes or named preemptees has no shape to remember answers by.
func TestShapeOfRequestsNamingNodes(t *testing.T) {
	for _, r := range []Request{
		{MinNodes: 1, RequiredSet: roaring.BitmapOf(3)},
		{MinNodes: 1, ExcludedSet: roaring.BitmapOf(3)},
		{MinNodes: 1, Required: "n3"},
		{MinNodes: 1, PreemptCandidates: []uint32{}},
	} {
		if _, ok := r.Shape(); ok {
			t.Errorf("%+v has a shape", r)
		}
	}
	plain := Request{ID: 4, MinNodes: 2, Partition: "p", RequiredSet: roaring.New(), TimeLimit: 60}
	s, ok := plain.Shape()
	other := plain
	other.ID, other.TimeLimit, other.Priority = 5, 120, 9
	o, _ := other.Shape()
	if !ok || s != o {
		t.Errorf("requests differing in id, limit and priority have shapes %+v and %+v", s, o)
	}
}

// TestMemoKeepsAnswersApart: answers are found only under their own shape,
// extra value and candidates, and are copies.
func TestMemoKeepsAnswersApart(t *testing.T) {
	var m Memo
	a, b := &Request{MinNodes: 1, Partition: "p"}, &Request{MinNodes: 2, Partition: "p"}
	c1, c2 := bitset.New(100), bitset.New(100)
	c1.Add(3)
	c2.Add(4)
	nodes := bitset.New(100)
	nodes.Add(3)
	_, h, _ := m.Get(a, 0, 1, c1)
	got := m.Put(h, a, 0, 1, c1, Answer{Nodes: nodes, CPUs: 8, End: 500})
	nodes.Add(7)
	c1.Add(9)
	if got.Nodes.Has(7) {
		t.Fatal("the memo kept the caller's node set")
	}
	c1.Del(9)
	if x, _, ok := m.Get(a, 0, 1, c1); !ok || x.End != 500 || x.CPUs != 8 || !x.Nodes.Has(3) {
		t.Fatalf("answer not found: %+v %v", x, ok)
	}
	for _, miss := range []struct {
		r       *Request
		planEnd int64
		extra   int
		cand    bitset.Set
	}{{b, 0, 1, c1}, {a, 0, 2, c1}, {a, 0, 1, c2}, {a, 7, 1, c1}} {
		if _, _, ok := m.Get(miss.r, miss.planEnd, miss.extra, miss.cand); ok {
			t.Errorf("found an answer under another key %+v", miss)
		}
	}
	if StartAt(FitsNow, 10) != 10 || StartAt(500, 10) != 500 || StartAt(5, 10) != 11 {
		t.Error("StartAt")
	}
}

// TestMemoAfterResetKnowsOnlyNewAnswers: Reset forgets every answer, and
// the answers put after it (in the storage of the old ones) are the new
// ones, nodes and candidates copied, whatever the caller's buffers hold
// afterwards.
func TestMemoAfterResetKnowsOnlyNewAnswers(t *testing.T) {
	var m Memo
	shape := func(n int) *Request { return &Request{MinNodes: n, Partition: "p"} }
	cand, nodes := bitset.New(200), bitset.New(200)
	for round := 0; round < 3; round++ {
		for k := 1; k <= 50; k++ {
			clear(cand)
			cand.Add(uint32(k + round))
			clear(nodes)
			nodes.Add(uint32(2*k + round))
			_, h, _ := m.Get(shape(k), 0, round, cand)
			m.Put(h, shape(k), 0, round, cand, Answer{Nodes: nodes, End: int64(100*round + k)})
		}
		clear(nodes)
		for k := 1; k <= 50; k++ {
			clear(cand)
			cand.Add(uint32(k + round))
			a, _, ok := m.Get(shape(k), 0, round, cand)
			if !ok || a.End != int64(100*round+k) || a.Nodes.Count() != 1 || !a.Nodes.Has(uint32(2*k+round)) {
				t.Fatalf("round %d, key %d: got %+v, %v", round, k, a, ok)
			}
			if round > 0 {
				clear(cand)
				cand.Add(uint32(k + round - 1))
				if _, _, ok := m.Get(shape(k), 0, round-1, cand); ok {
					t.Fatalf("round %d, key %d: an answer from before Reset", round, k)
				}
			}
		}
		m.Reset()
	}
}

// TestMemoFindsEveryAnswerUpToItsLimit: a memo filled with memoLimit
// answers (whose table slots collide and probe on) finds each one, those
// replaced with their new answer; the next Put forgets all but its own.
func TestMemoFindsEveryAnswerUpToItsLimit(t *testing.T) {
	var m Memo
	s := &Request{MinNodes: 1, Partition: "p"}
	cand := bitset.New(256)
	key := func(k int) {
		clear(cand)
		cand[0], cand[3] = uint64(k), uint64(7*k)
	}
	for k := 0; k < memoLimit; k++ {
		key(k)
		_, h, ok := m.Get(s, 0, k%3, cand)
		if ok {
			t.Fatalf("key %d found before it was put", k)
		}
		m.Put(h, s, 0, k%3, cand, Answer{End: int64(k)})
	}
	for k := 0; k < memoLimit; k += 2 {
		key(k)
		a, _, ok := m.Get(s, 0, k%3, cand)
		if !ok {
			t.Fatalf("key %d not found", k)
		}
		m.Replace(a, Answer{End: int64(-k)})
	}
	for k := 0; k < memoLimit; k++ {
		key(k)
		want := int64(k)
		if k%2 == 0 {
			want = -want
		}
		if a, _, ok := m.Get(s, 0, k%3, cand); !ok || a.End != want {
			t.Fatalf("key %d: got %+v, %v, want end %d", k, a, ok, want)
		}
	}
	key(memoLimit)
	_, h, _ := m.Get(s, 0, 0, cand)
	m.Put(h, s, 0, 0, cand, Answer{End: 1})
	if a, _, ok := m.Get(s, 0, 0, cand); !ok || a.End != 1 {
		t.Fatalf("the answer past the limit: %+v, %v", a, ok)
	}
	for k := 0; k < memoLimit; k++ {
		key(k)
		if _, _, ok := m.Get(s, 0, k%3, cand); ok {
			t.Fatalf("key %d found after the memo passed its limit", k)
		}
	}
}

// TestShapeOfReadsEveryField: a shape is of the request it was made from
// (with its PlanEnd), and of no request that differs from it in one of
// its fields, nor with another PlanEnd: Get compares the request in place
// of its shape.
func TestShapeOfReadsEveryField(t *testing.T) {
	base := Request{ID: 4, MinNodes: 2, MaxNodes: 3, NTasks: 5, Partition: "p", GPUType: "a100", PlanEnd: 90, TimeLimit: 60}
	s, ok := base.Shape()
	if !ok || !s.of(&base, 90) {
		t.Fatalf("%+v is not of the request it was made from", s)
	}
	if s.of(&base, 91) {
		t.Error("a shape is of its request with another PlanEnd")
	}
	other := base
	other.ID, other.TimeLimit, other.Priority = 5, 120, 9
	if !s.of(&other, 90) {
		t.Error("a shape is not of a request differing in id, limit and priority")
	}
	st := reflect.TypeFor[Shape]()
	for i := range st.NumField() {
		name := st.Field(i).Name
		r := base
		f := reflect.ValueOf(&r).Elem().FieldByName(name)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint8, reflect.Uint64:
			f.SetUint(f.Uint() + 1)
		default:
			t.Fatalf("Shape.%s: no change made for kind %s", name, f.Kind())
		}
		planEnd := int64(90)
		if name == "PlanEnd" {
			planEnd = r.PlanEnd
			if !s.of(&r, 90) {
				t.Error("a shape reads PlanEnd of the request, not the one given")
			}
		}
		if s.of(&r, planEnd) {
			t.Errorf("a shape is of a request with another %s", name)
		}
	}
}
