package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
)

// victimRelease replays one order in which a preempted victim's nodes
// come free: sched frees all of a killed or requeued victim's nodes at
// the pass after the one that stopped it; here every node but its batch
// host (its first) comes free then, and the batch host delay seconds
// later, after that second's passes, its epilog queueing a main pass. It
// wraps the select plugin's Fini (sched's production code is unchanged).
// perVictim, if set, gives the delay of each victim of several nodes in
// the order they are freed (-1: all its nodes at once, as sched does),
// delay that of those after.
type victimRelease struct {
	q         *sched.Queue
	delay     int64
	perVictim []int64
	victims   int   // victims of several nodes freed so far
	now       int64 // the second being ticked
	held      []heldHost
}

// heldHost is a victim's batch host, still completing until at.
type heldHost struct {
	id   uint32
	at   int64
	base job.Plugin
}

// releaseModel is a replay's own order of a preempted victim's nodes
// coming free: it wraps the select plugin and runs each second's passes.
type releaseModel interface {
	wrap(p job.Plugin) job.Plugin
	attach(q *sched.Queue, cl *job.Cluster)
	tick(now int64) *sched.Pass
}

func (r *victimRelease) attach(q *sched.Queue, _ *job.Cluster) { r.q = q }

// wrap returns p with its Fini replaced.
func (r *victimRelease) wrap(p job.Plugin) job.Plugin { return wrapFini(p, r) }

// finiHook decides what a plugin's Fini does.
type finiHook interface {
	fini(base job.Plugin, id uint32) error
}

// wrapFini returns p with its Fini replaced by h's, keeping the optional
// interfaces of the concrete plugins (NodeSharer, DenseWillRun,
// AbsolutePlans).
func wrapFini(p job.Plugin, h finiHook) job.Plugin {
	switch b := p.(type) {
	case *constres.Plugin:
		return constresRelease{b, h}
	case *linear.Plugin:
		return linearRelease{b, h}
	}
	return p
}

type constresRelease struct {
	*constres.Plugin
	r finiHook
}

// Fini implements job.Plugin.
func (p constresRelease) Fini(id uint32) error { return p.r.fini(p.Plugin, id) }

type linearRelease struct {
	*linear.Plugin
	r finiHook
}

// Fini implements job.Plugin.
func (p linearRelease) Fini(id uint32) error { return p.r.fini(p.Plugin, id) }

// fini frees a victim's nodes but its batch host and keeps that one
// until delay seconds after now; any other job's go at once.
func (r *victimRelease) fini(base job.Plugin, id uint32) error {
	j, ok := r.q.Job(id)
	if !ok || (j.State != sched.Preempted && j.State != sched.Pending) {
		return base.Fini(id)
	}
	var nodes []uint32
	for _, h := range base.Held() {
		if h.ID == id {
			nodes = h.Nodes
		}
	}
	if len(nodes) < 2 {
		return base.Fini(id)
	}
	delay := r.delay
	if r.victims < len(r.perVictim) {
		delay = r.perVictim[r.victims]
	}
	r.victims++
	if delay < 0 {
		return base.Fini(id)
	}
	for _, n := range nodes[1:] {
		if err := base.Resize(id, n); err != nil {
			return err
		}
	}
	r.held = append(r.held, heldHost{id: id, at: r.now + delay, base: base})
	return nil
}

// tick is Queue.Tick at now, then the batch hosts due by now come free
// and their epilogs' main pass runs.
func (r *victimRelease) tick(now int64) *sched.Pass {
	r.now = now
	p := r.q.Tick(now)
	keep := r.held[:0]
	freed := false
	for _, h := range r.held {
		if h.at > now {
			keep = append(keep, h)
			continue
		}
		_ = h.base.Fini(h.id)
		freed = true
	}
	r.held = keep
	if freed {
		r.q.NodesChanged(now)
		r.q.MainPass(now, false, p)
	}
	return p
}

// victimRaceDelays are the batch host delays tried: its epilog after the
// victim's other nodes', in the same second (after that second's passes)
// or one to three seconds later (KillWait is 2 s in the lab).
var victimRaceDelays = []int64{0, 1, 2, 3}

// perVictimOrder is raceReproduced's answer for a case its order in
// victimRaceOrders reproduces.
const perVictimOrder = -2

// raceReproduced replays the cases of known whose cause is one of causes
// with their order in victimRaceOrders, or else once for each of
// victimRaceDelays, and returns, per case key, perVictimOrder or the first
// delay with which every job agrees with Slurm (-1: none) and, for a case
// nothing reproduces, the first difference of the replay with the
// fewest.
func raceReproduced(t *testing.T, paths []string, known map[string]string, causes ...string) (map[string]int64, map[string]string) {
	t.Helper()
	got, diff := map[string]int64{}, map[string]string{}
	for _, path := range paths {
		var rec schedRecording
		readLab(t, path, &rec)
		for _, c := range rec.Cases {
			key := strings.TrimSuffix(filepath.Base(path), ".gz") + "/" + c.Name
			if !slices.Contains(causes, known[key]) || c.Mode != "schedule" || c.Read == 0 {
				continue
			}
			got[key] = -1
			if order, ok := victimRaceOrders[key]; ok {
				diffs, err := replaySchedCase(rec, c, &victimRelease{delay: -1, perVictim: order})
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				if len(diffs) == 0 {
					got[key] = perVictimOrder
					continue
				}
				diff[key] = fmt.Sprintf("victimRaceOrders: %d differences, the first %s", len(diffs), diffs[0])
			}
			fewest := 0
			for _, d := range victimRaceDelays {
				diffs, err := replaySchedCase(rec, c, &victimRelease{delay: d})
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				if len(diffs) == 0 {
					got[key] = d
					delete(diff, key)
					break
				}
				if fewest == 0 || len(diffs) < fewest {
					fewest = len(diffs)
					diff[key] = fmt.Sprintf("batch host %d s later: %d differences, the first %s", d, len(diffs), diffs[0])
				}
			}
		}
	}
	return got, diff
}

// victimRaceOrders are per-victim orders (victimRelease.perVictim, the
// victims after them freed whole) with which a case's replay agrees with
// Slurm in every job, found by searchVictimRace.
var victimRaceOrders = map[string][]int64{
	"preempt-1-01.json/p1-01-04": {0, -1, -1, -1, -1},
	"preempt-1-01.json/p1-01-10": {-1, -1, -1, -1, 0},
	"preempt-1-01.json/p1-01-08": {-1, -1, -1, 0, 1},
	"preempt-1-05.json/p1-05-07": {-1, -1, -1, -1, -1, -1, -1, 0},
	"preempt-1-08.json/p1-08-09": {-1, 0, -1},
	"preempt-1-10.json/p1-10-06": {-1, 0},
	"preempt-2-01.json/p2-01-07": {0, -1, 1, -1},
	"preempt-2-02.json/p2-02-09": {-1, -1, 0, -1},
	"preempt-2-03.json/p2-03-03": {-1, -1, 0, 0, -1, -1},
	"preempt-2-04.json/p2-04-06": {-1, 0, -1},
	"preempt-2-04.json/p2-04-08": {0, -1},
	"preempt-2-05.json/p2-05-02": {-1, 0, -1},
	"preempt-2-05.json/p2-05-06": {-1, -1, -1, -1, -1, -1, 0, -1},
}

// searchVictimRace looks for a per-victim order that reproduces case c,
// by coordinate descent: victim by victim, in the order they are freed,
// the choice of -1 (whole) or one of victimRaceDelays with the fewest
// differences, the others kept, in sweeps until one changes nothing (at
// most three). It returns the order and its differences.
func searchVictimRace(rec schedRecording, c schedCase) ([]int64, int, error) {
	var order []int64
	choices := append([]int64{-1}, victimRaceDelays...)
	best := -1
	for sweep := 0; sweep < 3; sweep++ {
		changed := false
		for k := 0; k < max(len(order), 1); k++ {
			for _, d := range choices {
				try := slices.Clone(order)
				if k < len(try) {
					try[k] = d
				} else {
					try = append(try, d)
				}
				r := &victimRelease{delay: -1, perVictim: try}
				diffs, err := replaySchedCase(rec, c, r)
				if err != nil {
					return nil, 0, err
				}
				if best < 0 || len(diffs) < best {
					best, changed = len(diffs), best >= 0
					order = try
				}
				// Victims freed later, now or in another
				// order: their slots are tried too.
				for len(order) < r.victims {
					order = append(order, -1)
				}
				if best == 0 {
					return order, 0, nil
				}
			}
		}
		if !changed {
			break
		}
	}
	return order, best, nil
}

// TestVictimRaceSearch searches per-victim orders for the cases labelled
// victimNodesRaceUnconfirmed (SIFT_RACE_SEARCH=1: a minute or more) and
// prints those found, as lines of victimRaceOrders.
func TestVictimRaceSearch(t *testing.T) {
	if os.Getenv("SIFT_RACE_SEARCH") == "" {
		t.Skip("SIFT_RACE_SEARCH not set")
	}
	paths, _ := filepath.Glob(filepath.Join(preemptRandomDir, "*.json.gz"))
	for _, path := range paths {
		var rec schedRecording
		readLab(t, path, &rec)
		for _, c := range rec.Cases {
			key := strings.TrimSuffix(filepath.Base(path), ".gz") + "/" + c.Name
			if preemptRandomKnown[key] != victimNodesRaceUnconfirmed {
				continue
			}
			order, n, err := searchVictimRace(rec, c)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			if n == 0 {
				fmt.Printf("\t%q: {%s},\n", key, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(order)), ", "), "[]"))
			} else {
				t.Logf("%s: %d differences left with %v", key, n, order)
			}
		}
	}
}
