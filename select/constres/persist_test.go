package constres

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/statefile"
)

func TestStateSurvivesRestartAndRefusesNewer(t *testing.T) {
	g := small
	g.gpus = 2
	cl := testCluster(t, same(3, g)...)
	p := New(cl, cfg())
	run(t, p, "id=1,nodes=2,ntasks=4,gpus-per-node=1", nil)
	run(t, p, "id=2,nodes=1,ntasks=2,mem=300", nil)
	if err := p.Suspend(2); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.SaveState(dir, 9); err != nil {
		t.Fatal(err)
	}
	q := New(cl, cfg())
	if err := q.LoadState(dir); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Jobs(), []uint32{1, 2}) || !slices.Equal(q.st.mem, p.st.mem) || !slices.Equal(q.st.nodeReq, p.st.nodeReq) {
		t.Fatal("restored state differs")
	}
	if q.st.parts[""].rows[0].Count() != p.st.parts[""].rows[0].Count() {
		t.Fatal("restored rows differ")
	}
	path := filepath.Join(dir, StateFile)
	b, _ := os.ReadFile(path)
	b[8] = 99 // format version
	os.WriteFile(path, b, 0o600)
	r := New(cl, cfg())
	run(t, r, "id=5,nodes=1", nil)
	if err := r.LoadState(dir); !errors.Is(err, statefile.ErrNewer) {
		t.Fatalf("newer file: %v", err)
	}
	if !slices.Equal(r.Jobs(), []uint32{5}) {
		t.Fatal("a refused restore changed the state")
	}
}

func TestRestoreRefusesDoubleAllocation(t *testing.T) {
	cl := testCluster(t, small)
	p := New(cl, cfg())
	run(t, p, "id=1,ntasks=4", nil)
	b := p.MarshalState()
	// Duplicate the one job under another id: the same cores twice.
	var e statefile.Encoder
	e.U32(1)
	e.U32(2)
	rec := b[8:]
	e.Buf = append(e.Buf, rec...)
	rec2 := append([]byte(nil), rec...)
	rec2[0] = 2
	e.Buf = append(e.Buf, rec2...)
	q := New(cl, cfg())
	if err := q.RestoreState(e.Buf); err == nil {
		t.Fatal("restored a core allocated twice")
	}
	if len(q.Jobs()) != 0 {
		t.Fatal("a refused restore changed the state")
	}
}

func FuzzRestoreState(f *testing.F) {
	g := small
	g.gpus = 2
	cl := testCluster(f, same(3, g)...)
	p := New(cl, cfg())
	r := spec(f, cl, "id=1,nodes=2,ntasks=3,gpus-per-node=1")
	a, err := p.Select(r, cl.Snap.Live(), job.RunNow, 0)
	if err != nil {
		f.Fatal(err)
	}
	if err := p.Begin(r, a); err != nil {
		f.Fatal(err)
	}
	f.Add(p.MarshalState())
	f.Fuzz(func(t *testing.T, b []byte) {
		q := New(cl, cfg())
		if err := q.RestoreState(b); err != nil {
			if len(q.Jobs()) != 0 {
				t.Fatal("a refused restore changed the state")
			}
			return
		}
		checkInvariants(t, q)
	})
}
