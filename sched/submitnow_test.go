package sched

import "testing"

// TestAllocateAtSubmitStartsOnlyTheTopJob is job_allocate at submission:
// a job is selected at once only when no eligible pending job of a higher
// tier, or of its tier and a higher priority, shares its nodes; it may
// preempt then.
func TestAllocateAtSubmitStartsOnlyTheTopJob(t *testing.T) {
	for _, c := range []struct {
		name    string
		pending func(f *fixture)
		want    string
	}{
		{"an empty queue", func(*fixture) {}, "RUNNING n1,n2"},
		{"behind a higher-priority job of its tier", func(f *fixture) { f.submit(9, 50, "nodes=4,partition=lo") }, "PENDING Priority"},
		{"ahead of a lower-priority job of its tier", func(f *fixture) { f.submit(9, 5, "nodes=4,partition=lo") }, "RUNNING n1,n2"},
		{"behind a job of a higher tier", func(f *fixture) { f.submit(9, 1, "nodes=4,partition=hipart") }, "PENDING Priority"},
		{"a held job does not count", func(f *fixture) { f.submit(9, 0, "nodes=4,partition=hipart") }, "RUNNING n1,n2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := preemptFixture(t, Builtin{}, Preemption{}, Partition{}, false)
			c.pending(f)
			j := f.submit(1, 10, "nodes=2,partition=lo")
			p := &Pass{}
			f.q.AllocateAtSubmit(1, 100, p)
			if got := f.outcome(j); got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
	f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{}, false)
	v := f.runLo(5, "n1,n2,n3,n4", 50)
	f.submit(1, 10, "nodes=2,partition=hipart")
	p := &Pass{}
	f.q.AllocateAtSubmit(1, 100, p)
	if v.State != Preempted || len(p.Preempted) != 1 {
		t.Errorf("the top job at submit does not preempt: victim %s, events %+v", f.outcome(v), p.Preempted)
	}
}
