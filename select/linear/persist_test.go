package linear

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nodesift/sift/select/job"
)

func TestStateSurvivesRestartAndRefusesCorruption(t *testing.T) {
	cl := testCluster(t, []int{2, 2, 2, 2}, nil)
	p := New(cl, Config{TrackMemory: true})
	begin(t, p, "id=1,nodes=2,mem=100,time=10", 0, 1)
	begin(t, p, "id=2,nodes=1,preemptable,priority=3", 3)
	if err := p.Suspend(2); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.SaveState(dir, 50); err != nil {
		t.Fatal(err)
	}
	q := New(cl, Config{TrackMemory: true})
	if err := q.LoadState(dir); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Jobs(), []uint32{1, 2}) || !slices.Equal(q.st.mem, p.st.mem) || !slices.Equal(q.st.run, p.st.run) ||
		!slices.Equal(q.st.tot, p.st.tot) || !slices.Equal(q.st.excl, p.st.excl) || !slices.Equal(q.st.clean, p.st.clean) {
		t.Fatal("restored state differs")
	}
	if !q.st.jobs[2].suspended || q.st.jobs[1].end != p.st.jobs[1].end {
		t.Fatal("restored job fields differ")
	}
	path := filepath.Join(dir, StateFile)
	b, _ := os.ReadFile(path)
	b[len(b)-8] ^= 0xff
	os.WriteFile(path, b, 0o600)
	r := New(cl, Config{TrackMemory: true})
	begin(t, r, "id=7,nodes=1", 2)
	if err := r.LoadState(dir); err == nil {
		t.Fatal("corrupt state accepted")
	}
	if !slices.Equal(r.Jobs(), []uint32{7}) {
		t.Fatal("a refused restore changed the state")
	}
}

func FuzzRestoreState(f *testing.F) {
	cl := testCluster(f, []int{2, 2, 2}, nil)
	p := New(cl, Config{TrackMemory: true})
	r := spec(f, cl, "id=1,nodes=2,mem=100")
	if err := p.Begin(r, &job.Allocation{Nodes: bmOf(0, 2)}); err != nil {
		f.Fatal(err)
	}
	f.Add(p.MarshalState())
	f.Fuzz(func(t *testing.T, b []byte) {
		q := New(cl, Config{TrackMemory: true})
		if err := q.RestoreState(b); err != nil {
			if len(q.Jobs()) != 0 {
				t.Fatal("a refused restore changed the state")
			}
			return
		}
		checkInvariants(t, q)
	})
}
