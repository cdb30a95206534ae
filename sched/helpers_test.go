package sched

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
)

// testNode is "name:partition[+partition]:state:extra" shorthand.
type testNode struct {
	name  string
	parts []string
	state string
	extra string
	cpus  int
}

func nodesN(prefix string, from, to int, parts ...string) []testNode {
	var out []testNode
	for i := from; i <= to; i++ {
		out = append(out, testNode{name: fmt.Sprintf("%s%d", prefix, i), parts: parts})
	}
	return out
}

type fixture struct {
	t  *testing.T
	q  *Queue
	cl *job.Cluster
}

// newFixture builds a queue over whole-node select/linear (cons=false) or
// cons_tres, 4 CPUs per node unless set.
func newFixture(t *testing.T, nodes []testNode, s Scheduler, cfg Config, parts map[string]Partition, cons bool) *fixture {
	t.Helper()
	var in []index.Node
	for _, n := range nodes {
		cpus := n.cpus
		if cpus == 0 {
			cpus = 4
		}
		nd := index.Node{Name: n.name, CPUs: cpus, MemoryMB: 1000, Partitions: n.parts, State: n.state}
		if n.extra != "" {
			nd.Extra = []byte(n.extra)
		}
		in = append(in, nd)
	}
	snap, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(snap)
	for name, p := range cl.Partitions {
		if strings.HasPrefix(name, "hi") {
			p.PriorityTier = 10
		}
	}
	var p job.Plugin
	if cons {
		p = constres.New(cl, constres.Config{})
	} else {
		p = linear.New(cl, linear.Config{})
	}
	return &fixture{t: t, cl: cl, q: NewQueue(Options{Cluster: cl, Plugin: p, Scheduler: s, Config: cfg, Partitions: parts})}
}

// spec parses a job request; time is in minutes.
func (f *fixture) submit(id uint32, prio uint32, spec string, mut ...func(*Job)) *Job {
	f.t.Helper()
	req, err := job.ParseSpec(spec)
	if err != nil {
		f.t.Fatal(err)
	}
	part := req.Partition
	if part == "" {
		part = "batch"
	}
	j := &Job{ID: id, User: "u", Name: fmt.Sprintf("j%d", id), Priority: prio, Partitions: strings.Split(part, "+"), TimeLimit: req.TimeLimit, Request: req, Submit: int64(id)}
	for _, m := range mut {
		m(j)
	}
	held := j.Priority == 0
	if err := f.q.Submit(j, held, j.Submit); err != nil {
		f.t.Fatal(err)
	}
	return j
}

// running adds a running job on nodes from start to end.
func (f *fixture) running(id uint32, part, nodes string, start, end int64) *Job {
	f.t.Helper()
	ids := roaring.New()
	for _, n := range strings.Split(nodes, ",") {
		nid, ok := f.cl.Snap.ID(n)
		if !ok {
			f.t.Fatalf("no node %s", n)
		}
		ids.Add(nid)
	}
	j := &Job{ID: id, User: "u", Name: fmt.Sprintf("j%d", id), Priority: 1, Partitions: []string{part}, Partition: part,
		Request: &job.Request{Partition: part, Exclusive: true}, Start: start, End: end, Nodes: ids, Submit: start, TimeLimit: time.Duration(end-start) * time.Second}
	if err := f.q.AddRunning(j); err != nil {
		f.t.Fatal(err)
	}
	return j
}

func (f *fixture) names(b *roaring.Bitmap) string {
	return strings.Join(nodeNames(f.cl, b), ",")
}

// nodeNames is the names of the nodes of b in id order.
func nodeNames(cl *job.Cluster, b *roaring.Bitmap) []string {
	if b == nil {
		return nil
	}
	var out []string
	it := b.Iterator()
	for it.HasNext() {
		nd, _ := cl.Snap.Node(it.Next())
		out = append(out, nd.Name)
	}
	return out
}

func (f *fixture) pass(now int64) *Pass {
	f.t.Helper()
	p, err := f.q.sched.Schedule(f.q, now)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// outcome is a job's state, nodes and reason in one string.
func (f *fixture) outcome(j *Job) string {
	if j.State == Running {
		return "RUNNING " + f.names(j.Nodes)
	}
	return j.State.String() + " " + j.ReasonText()
}
