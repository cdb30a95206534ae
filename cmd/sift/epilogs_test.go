package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

// labEvent is one event of slurmctld's log kept by siftlab record
// -events (lab/slurm/siftlab/events.go): MS after the start of the
// release's second.
type labEvent struct {
	MS    int64  `json:"ms"`
	Kind  string `json:"kind"`
	Job   uint32 `json:"job"`
	By    uint32 `json:"by"`
	Mode  string `json:"mode"`
	Nodes string `json:"nodes"`
}

// epilogRelease replays a case in slurmctld's recorded order instead of
// sched's timers: from the release on, a main pass where slurmctld's log
// began one, a backfill cycle where it began one, and a killed or
// requeued victim's node coming free where its epilog completed. Until
// then the node stays the victim's (its cores held in the plugin), as
// slurmctld keeps a completing node from every job.
type epilogRelease struct {
	q        *sched.Queue
	cl       *job.Cluster
	base     job.Plugin
	events   []labEvent
	released int64
	next     int // first event not replayed
	// held are the victims killed or requeued in the replay whose nodes
	// have not all come free, with the nodes left.
	held map[uint32]*roaring.Bitmap
	// epilogs are the jobs whose epilogs the log shows: a victim without
	// any (slurmctld did not stop it) comes free whole at once.
	epilogs map[uint32]bool
	// unmatched counts the victims of the replay slurmctld did not stop.
	unmatched int
	debug     bool
}

func newEpilogRelease(c schedCase) *epilogRelease {
	r := &epilogRelease{events: c.Events, released: c.Released, held: map[uint32]*roaring.Bitmap{}, epilogs: map[uint32]bool{}, debug: os.Getenv("SIFT_EPILOG_DEBUG") != ""}
	for _, e := range c.Events {
		if e.Kind == "epilog" {
			r.epilogs[e.Job] = true
		}
	}
	return r
}

// wrap keeps p (the base the epilogs free) and returns it with a Fini
// that leaves a victim whose epilogs are still to come in place: sched
// frees its victims at its next pass.
func (r *epilogRelease) wrap(p job.Plugin) job.Plugin {
	r.base = p
	return wrapFini(p, r)
}

func (r *epilogRelease) fini(base job.Plugin, id uint32) error {
	if _, ok := r.held[id]; ok {
		return nil
	}
	return base.Fini(id)
}

func (r *epilogRelease) attach(q *sched.Queue, cl *job.Cluster) { r.q, r.cl = q, cl }

// second is the second of the release an event falls in.
func (r *epilogRelease) second(e labEvent) int64 {
	s := e.MS / 1000
	if e.MS < 0 && e.MS%1000 != 0 {
		s--
	}
	return r.released + s
}

// tick replays the events of second now, in order.
func (r *epilogRelease) tick(now int64) *sched.Pass {
	p := &sched.Pass{}
	for ; r.next < len(r.events); r.next++ {
		e := r.events[r.next]
		if r.second(e) > now {
			break
		}
		m0, s0 := len(p.Preempted), len(p.Started)
		switch e.Kind {
		case "main":
			n := len(p.Preempted)
			r.q.MainPass(now, e.Mode == "full", p)
			r.stopped(p.Preempted[n:], now)
		case "backfill":
			n, s := len(p.Preempted), len(p.Started)
			r.q.BackfillPass(now, p)
			p.BackfillStarted += len(p.Started) - s
			r.stopped(p.Preempted[n:], now)
		case "epilog":
			r.epilog(e, now)
		}
		if r.debug {
			fmt.Printf("%5d %-8s %d %s", e.MS, e.Kind, e.Job, e.Nodes)
			if e.Kind == "main" || e.Kind == "backfill" {
				fmt.Printf(" | sift started %v preempted", p.Started[s0:])
				for _, pe := range p.Preempted[m0:] {
					fmt.Printf(" %d for %d", pe.Victim, pe.Preemptor)
				}
			}
			fmt.Println()
		}
	}
	return p
}

// stopped takes over the victims a pass killed or requeued: sched keeps
// them for its own Tick, which this replay does not run.
func (r *epilogRelease) stopped(ev []sched.PreemptEvent, now int64) {
	for _, pe := range ev {
		if pe.Mode != sched.PreemptCancel && pe.Mode != sched.PreemptRequeue || pe.End > now {
			continue
		}
		var nodes *roaring.Bitmap
		for _, h := range r.base.Held() {
			if h.ID == pe.Victim {
				nodes = roaring.BitmapOf(h.Nodes...)
			}
		}
		if nodes == nil {
			continue
		}
		if !r.epilogs[pe.Victim] {
			r.unmatched++
			_ = r.base.Fini(pe.Victim)
			r.q.NodesChanged(now)
			continue
		}
		r.held[pe.Victim] = nodes
	}
}

// epilog frees the node of a held victim its epilog names.
func (r *epilogRelease) epilog(e labEvent, now int64) {
	nodes, ok := r.held[e.Job]
	if !ok {
		return
	}
	id, ok := r.cl.Snap.ID(e.Nodes)
	if !ok || !nodes.Contains(id) {
		return
	}
	nodes.Remove(id)
	if nodes.IsEmpty() {
		_ = r.base.Fini(e.Job)
		delete(r.held, e.Job)
	} else {
		_ = r.base.Resize(e.Job, id)
	}
	r.q.NodesChanged(now)
}

// TestEpilogOrderTrial (SIFT_EPILOG_DIR=DIR) replays each case of DIR
// both ways and prints the differences.
func TestEpilogOrderTrial(t *testing.T) {
	dir := os.Getenv("SIFT_EPILOG_DIR")
	if dir == "" {
		t.Skip("SIFT_EPILOG_DIR not set")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, path := range paths {
		var rec schedRecording
		readLab(t, path, &rec)
		for _, c := range rec.Cases {
			plain, err := replaySchedCase(rec, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := newEpilogRelease(c)
			ev, err := replaySchedCase(rec, c, r)
			if err != nil {
				t.Fatal(err)
			}
			first := func(d []string) string {
				if len(d) == 0 {
					return ""
				}
				return d[0]
			}
			if os.Getenv("SIFT_EPILOG_ALL") != "" {
				for _, d := range plain {
					fmt.Println("  timers:", d)
				}
				for _, d := range ev {
					fmt.Println("  events:", d)
				}
			}
			fmt.Printf("%s: timers %d, events %d (unmatched victims %d) | %s | %s\n", c.Name, len(plain), len(ev), r.unmatched, first(plain), first(ev))
		}
	}
}
