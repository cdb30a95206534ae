package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
)

// compare reports, case by case, where a new recording differs from an old
// one. Cases of the old file missing from the new one (a sample) are
// skipped. It exits 3 when any case differs.
func compare(args []string) error {
	if len(args) != 2 {
		return errors.New("compare needs OLD.json NEW.json")
	}
	old, err := readRecording(args[0])
	if err != nil {
		return err
	}
	cur, err := readRecording(args[1])
	if err != nil {
		return err
	}
	byName := map[string]Case{}
	for _, c := range old.Cases {
		byName[c.Name] = c
	}
	total, agree := 0, 0
	for _, c := range cur.Cases {
		o, ok := byName[c.Name]
		if !ok {
			fmt.Printf("%s: case %q is not in the old recording\n", args[1], c.Name)
			continue
		}
		total++
		if d := diffCase(o, c); d != "" {
			fmt.Printf("%s: %s: %s\n", args[0], c.Name, d)
			continue
		}
		agree++
	}
	fmt.Printf("%s: %d cases compared, %d agree\n", args[0], total, agree)
	if agree != total {
		os.Exit(3)
	}
	return nil
}

func diffCase(old, cur Case) string {
	if len(old.Jobs) != len(cur.Jobs) {
		return fmt.Sprintf("%d steps before, %d now", len(old.Jobs), len(cur.Jobs))
	}
	var oldFirst, curFirst int64
	for i := range old.Jobs {
		a, b := old.Jobs[i].Slurm, cur.Jobs[i].Slurm
		if d := diffOutcome(a, b, oldFirst, curFirst); d != "" {
			return fmt.Sprintf("job %d (%s): %s", i+1, old.Jobs[i].Spec, d)
		}
		if oldFirst == 0 && a.State == "RUNNING" {
			oldFirst = a.StartEpoch
		}
		if curFirst == 0 && b.State == "RUNNING" {
			curFirst = b.StartEpoch
		}
	}
	return ""
}

// diffOutcome compares what Slurm decided, leaving out what moves with the
// clock: start times count only relative to the case's first running job.
func diffOutcome(a, b Outcome, aFirst, bFirst int64) string {
	if a.State == "" && b.State == "" { // sbatch --test-only
		switch {
		case a.OK != b.OK:
			return fmt.Sprintf("will-run ok %v (%s), now %v (%s)", a.OK, a.Error, b.OK, b.Error)
		case !a.OK:
			return ""
		case a.Nodes != b.Nodes || a.Processors != b.Processors:
			return fmt.Sprintf("will-run %s/%d, now %s/%d", a.Nodes, a.Processors, b.Nodes, b.Processors)
		}
		an, bn := startsNow(a), startsNow(b)
		if an != bn {
			return fmt.Sprintf("will-run starts now %v, now %v", an, bn)
		}
		if !an && aFirst != 0 && bFirst != 0 {
			if d := (a.StartEpoch - aFirst) - (b.StartEpoch - bFirst); d > 5 || d < -5 {
				return fmt.Sprintf("will-run start +%d s after the first job, now +%d s", a.StartEpoch-aFirst, b.StartEpoch-bFirst)
			}
		}
		return ""
	}
	switch {
	case a.State != b.State:
		return fmt.Sprintf("state %s (%s), now %s (%s)", a.State, a.Reason+a.Error, b.State, b.Reason+b.Error)
	case a.State == "PENDING" && a.Reason != b.Reason:
		return fmt.Sprintf("pending for %s, now %s", a.Reason, b.Reason)
	case a.State == "REJECTED" && a.Error != b.Error:
		return fmt.Sprintf("rejected with %q, now %q", a.Error, b.Error)
	case a.Nodes != b.Nodes || a.NumCPUs != b.NumCPUs:
		return fmt.Sprintf("%s, now %s", a.summary(), b.summary())
	case len(a.PerNode) != len(b.PerNode):
		return fmt.Sprintf("%d per-node lines, now %d", len(a.PerNode), len(b.PerNode))
	}
	for k := range a.PerNode {
		x, y := a.PerNode[k], b.PerNode[k]
		if x.Name != y.Name || x.CPUIDs != y.CPUIDs || x.MemMB != y.MemMB || x.Gres != y.Gres || !reflect.DeepEqual(x.Cores, y.Cores) {
			return fmt.Sprintf("%s CPU_IDs=%s Mem=%d GRES=%s, now %s CPU_IDs=%s Mem=%d GRES=%s", x.Name, x.CPUIDs, x.MemMB, x.Gres, y.Name, y.CPUIDs, y.MemMB, y.Gres)
		}
	}
	return ""
}

// startsNow reports whether a will-run answer starts the job at once, read
// as sift's replay reads it: no start time (the first recordings wrote only
// "start_now") or a start within 2 s of the question.
func startsNow(o Outcome) bool {
	return o.StartEpoch == 0 || o.StartEpoch <= o.AskedEpoch+2
}
