package main

import (
	"fmt"
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
type victimRelease struct {
	q     *sched.Queue
	delay int64
	now   int64 // the second being ticked
	held  []heldHost
}

// heldHost is a victim's batch host, still completing until at.
type heldHost struct {
	id   uint32
	at   int64
	base job.Plugin
}

// wrap returns p with its Fini replaced, keeping the optional interfaces
// of the concrete plugins (NodeSharer, DenseWillRun, AbsolutePlans).
func (r *victimRelease) wrap(p job.Plugin) job.Plugin {
	switch b := p.(type) {
	case *constres.Plugin:
		return constresRelease{b, r}
	case *linear.Plugin:
		return linearRelease{b, r}
	}
	return p
}

type constresRelease struct {
	*constres.Plugin
	r *victimRelease
}

// Fini implements job.Plugin.
func (p constresRelease) Fini(id uint32) error { return p.r.fini(p.Plugin, id) }

type linearRelease struct {
	*linear.Plugin
	r *victimRelease
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
	for _, n := range nodes[1:] {
		if err := base.Resize(id, n); err != nil {
			return err
		}
	}
	r.held = append(r.held, heldHost{id: id, at: r.now + r.delay, base: base})
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

// raceReproduced replays the cases of known whose cause is one of causes
// once for each of victimRaceDelays and returns, per case key, the first
// delay with which every job agrees with Slurm (-1: none) and, for a case
// no delay reproduces, the first difference of the replay with the
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
