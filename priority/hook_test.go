package priority

import (
	"fmt"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
)

// Through the scheduler's hook: a job's priority is set at submit from its
// factors, and a pass recomputes the pending ones only when a calculation
// period has passed since the last run.
func TestHookSetsAndRefreshesPriorities(t *testing.T) {
	var nodes []index.Node
	for i := 1; i <= 2; i++ {
		nodes = append(nodes, index.Node{Name: fmt.Sprintf("n%d", i), CPUs: 8, MemoryMB: 16000, Partitions: []string{"p1"}})
	}
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(snap)
	m := newMF(t, func(c *Config) {
		c.WeightAge, c.WeightJobSize, c.MaxAge, c.CalcPeriod = 1000, 100, 600, 60
	})
	h := NewHook(m)
	q := sched.NewQueue(sched.Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{}),
		Scheduler: sched.Builtin{}, Config: sched.DefaultConfig(), Priority: h})
	now := int64(t0)
	// A running job holds both nodes, so nothing starts.
	run := &sched.Job{ID: 1, User: "u", Account: "a", Partitions: []string{"p1"}, Start: now - 60, End: now + 3600,
		Nodes: roaring.BitmapOf(0, 1), Request: &job.Request{MinNodes: 2, Exclusive: true}}
	if err := q.AddRunning(run); err != nil {
		t.Fatal(err)
	}
	small := &sched.Job{ID: 2, User: "u", Account: "a", Partitions: []string{"p1"}, Submit: now,
		Request: &job.Request{MinNodes: 1, TimeLimit: time.Hour}, TimeLimit: time.Hour}
	if err := q.Submit(small, false, now); err != nil {
		t.Fatal(err)
	}
	big := &sched.Job{ID: 3, User: "u", Account: "a", Partitions: []string{"p1"}, Submit: now + 30,
		Request: &job.Request{MinNodes: 2, TimeLimit: time.Hour}, TimeLimit: time.Hour}
	if err := q.Submit(big, false, now+30); err != nil {
		t.Fatal(err)
	}
	// At submit neither accrues: job size alone over the 10-node, 100-CPU
	// cluster: (1/10 + 1/100)/2 and (2/10 + 2/100)/2 of 100.
	if small.Priority != 5 || big.Priority != 11 {
		t.Fatalf("at submit: small %d, big %d", small.Priority, big.Priority)
	}
	// The pass at +30 makes both eligible (the queue sets Eligible) and
	// runs the decay thread for the first time: no age yet.
	if _, err := q.Schedule(now + 30); err != nil {
		t.Fatal(err)
	}
	if small.Priority != 5 || big.Priority != 11 {
		t.Errorf("at +30: small %d, big %d", small.Priority, big.Priority)
	}
	// No calculation period passed since +30: unchanged.
	if _, err := q.Schedule(now + 60); err != nil {
		t.Fatal(err)
	}
	if small.Priority != 5 || big.Priority != 11 {
		t.Errorf("at +60: small %d, big %d, want unchanged", small.Priority, big.Priority)
	}
	// Runs at +90 and +150: both accrue from +30, 120 s of a 600 s
	// MaxAge at weight 1000.
	if _, err := q.Schedule(now + 150); err != nil {
		t.Fatal(err)
	}
	if small.Priority != 5+200 || big.Priority != 11+200 {
		t.Errorf("at +150: small %d, big %d", small.Priority, big.Priority)
	}

}
