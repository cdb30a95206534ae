package sched_test

import (
	"fmt"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
)

// A back end embeds a Queue over a cluster and a select plugin, records
// what runs, submits what pends, and asks for a pass at a time it gives.
func Example() {
	var nodes []index.Node
	for i := 1; i <= 4; i++ {
		nodes = append(nodes, index.Node{Name: fmt.Sprintf("n%d", i), CPUs: 8, MemoryMB: 16000, Partitions: []string{"batch"}})
	}
	snap, _ := index.Build(nodes)
	cl := job.NewCluster(snap)
	q := sched.NewQueue(sched.Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{}),
		Scheduler: sched.Backfill{}, Config: sched.DefaultConfig()})

	now := int64(1_699_999_980) // a multiple of bf_resolution (60 s)
	running := &sched.Job{ID: 1, Partitions: []string{"batch"}, Start: now - 600, End: now + 3600,
		Nodes: roaring.BitmapOf(0, 1), Request: &job.Request{Exclusive: true}}
	if err := q.AddRunning(running); err != nil {
		fmt.Println(err)
	}
	submit := func(id uint32, prio uint32, nodes int, limit time.Duration) *sched.Job {
		j := &sched.Job{ID: id, Partitions: []string{"batch"}, Priority: prio, TimeLimit: limit,
			Request: &job.Request{MinNodes: nodes, Exclusive: true, TimeLimit: limit}}
		if err := q.Submit(j, false, now); err != nil {
			fmt.Println(err)
		}
		return j
	}
	head := submit(2, 100, 4, time.Hour)
	short := submit(3, 50, 2, 30*time.Minute)
	long := submit(4, 40, 2, 3*time.Hour)

	if _, err := q.Schedule(now); err != nil {
		fmt.Println(err)
	}
	for _, j := range []*sched.Job{head, short, long} {
		fmt.Printf("job %d %s start=%+d reason=%s\n", j.ID, j.State, j.Start-now, j.ReasonText())
	}
	// The head job waits for job 1's nodes and holds all four from +3600;
	// the short job fits before that and starts now; the long one would
	// delay the head and is planned after it.

	// Output:
	// job 2 PENDING start=+3600 reason=Resources
	// job 3 RUNNING start=+0 reason=None
	// job 4 PENDING start=+7200 reason=Priority
}
