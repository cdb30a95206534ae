package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A scheduling case (mode "schedule") asks what slurmctld's passes do with
// a whole queue at once. Submitting jobs one by one lets slurmctld try each
// at submit and run passes between submissions, so the state read
// afterwards would depend on timing; holding them on drained nodes leaves
// each with a reason from those attempts, which a later pass keeps
// (_schedule() replaces only None and Resources). So every job of the case
// depends (afterany) on a held gate job as well as on what its spec says:
// slurmctld tests none of them while the gate pends, and one RPC, the
// gate's cancel, frees them all at once.
//
// Which pass then sees the queue first must not be left to chance either.
// A pending job's cancel queues no main pass; a main pass runs from
// slurmctld's background loop (each second) once one is queued
// (job_sched_cnt, which every submission and node update raises), and the
// backfill thread runs bf_interval after its last cycle: a race. So the
// recorder lets the passes the submissions queued run first (1.5 s), waits
// under sched/backfill for a backfill cycle to end (its "no jobs to
// backfill" log line, after a held sync job gives the thread work), then
// cancels the gate and queues one main pass (a
// node comment update): the main pass runs within a second, the next
// backfill cycle only bf_interval (3 s in the generated files) after the
// last, as sift's Queue.Tick orders them. Before each case it also waits a
// second after the last case's jobs are gone, for their epilogs (each runs
// a main pass). The release comes at once after the backfill cycle: the
// sync job's queued main pass, if it has not run yet, runs with the
// release's (the background loop takes every queued request at once). The
// case's Drained nodes are drained before the submissions and
// resumed after the case. After Wait seconds every job is read: state,
// reason, nodes, start or expected start, the nodes backfill planned and
// which pass started it.

// defaultWait is how long a scheduling case waits after the gate's
// cancel: the main pass, then backfill cycles bf_interval apart until
// nothing changes.
const defaultWait = 10

// runSchedCase records one scheduling case.
func (l *lab) runSchedCase(c *Case) error {
	if err := l.clear(); err != nil {
		return err
	}
	// The last case's epilogs may still report (each runs a main pass).
	time.Sleep(time.Second)
	if c.Drained != "" {
		if _, errs, err := l.cmd("scontrol", "update", "nodename="+c.Drained, "state=drain", "reason=siftlab"); err != nil {
			return fmt.Errorf("drain: %v: %s", err, errs)
		}
	}
	common := []string{"--parsable", "--chdir=" + os.TempDir(), "--output=/dev/null", "--wrap=sleep 100000"}
	ids, err := l.startRunning(c, common)
	if err != nil {
		return err
	}
	out, errs, err := l.cmd("sbatch", append([]string{"--hold", "--job-name=gate", "--nodes=1", "--time=1"}, common...)...)
	if err != nil {
		return fmt.Errorf("gate job: %v: %s", err, errs)
	}
	gate := strings.TrimSpace(strings.Split(out, ";")[0])
	c.Gate, _ = strconv.ParseUint(gate, 10, 32)
	for i := c.Running; i < len(c.Jobs); i++ {
		j := &c.Jobs[i]
		args, err := schedSbatchArgs(j.Spec, ids, gate)
		if err != nil {
			return fmt.Errorf("job %d: %w", i+1, err)
		}
		out, errs, err := l.cmd("sbatch", append(args, common...)...)
		if err != nil {
			j.Slurm = Outcome{State: "REJECTED", Error: strings.TrimSpace(errs)}
			ids = append(ids, "")
			continue
		}
		ids = append(ids, strings.TrimSpace(strings.Split(out, ";")[0]))
	}
	// Each submission queued a main pass (job_sched_cnt), which the
	// background loop runs within a second; let it run now, over the gated
	// queue, so that the release's own is the only one after it.
	time.Sleep(1500 * time.Millisecond)
	if err := l.afterBackfillCycle(common); err != nil {
		return err
	}
	first := l.firstNode()
	main0, bf0 := l.cycles()
	off := l.logSize()
	c.Released = time.Now().Unix()
	if _, errs, err := l.cmd("scancel", gate); err != nil {
		return fmt.Errorf("cancel gate: %v: %s", err, errs)
	}
	if _, errs, err := l.cmd("scontrol", "update", "nodename="+first, "comment=siftlab-release"); err != nil {
		return fmt.Errorf("queue a main pass: %v: %s", err, errs)
	}
	wait := c.Wait
	if wait == 0 {
		wait = defaultWait
	}
	time.Sleep(time.Duration(wait * float64(time.Second)))
	c.Read = time.Now().Unix()
	got, err := l.readQueue()
	if err != nil {
		return err
	}
	main1, bf1 := l.cycles()
	c.MainCycles, c.BackfillCycles = main1-main0, bf1-bf0
	if l.events {
		c.Events = l.readEvents(off, c.Released, true)
	}
	for i, id := range ids {
		if id == "" {
			continue
		}
		o, ok := got[id]
		if !ok {
			return fmt.Errorf("job %s (step %d) not in squeue", id, i+1)
		}
		c.Jobs[i].Slurm = o
	}
	_, _, _ = l.cmd("scancel", "--full", "-u", currentUser())
	if c.Drained != "" {
		_, _, _ = l.cmd("scontrol", "update", "nodename="+c.Drained, "state=resume")
	}
	return nil
}

// startRunning submits a case's first Running jobs without the gate, one
// by one, and keeps what slurmctld did with each (Started); it returns
// their ids ("" for a refused one).
func (l *lab) startRunning(c *Case, common []string) ([]string, error) {
	var ids []string
	c.Started = nil
	for i := 0; i < c.Running && i < len(c.Jobs); i++ {
		args, err := schedSbatchArgs(c.Jobs[i].Spec, ids, "")
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", i+1, err)
		}
		out, errs, err := l.cmd("sbatch", append(args, common...)...)
		if err != nil {
			c.Started = append(c.Started, Outcome{State: "REJECTED", Error: strings.TrimSpace(errs)})
			ids = append(ids, "")
			continue
		}
		id := strings.TrimSpace(strings.Split(out, ";")[0])
		ids = append(ids, id)
		c.Started = append(c.Started, l.settle(id))
	}
	return ids, nil
}

// afterBackfillCycle returns once a backfill cycle has begun and ended,
// if the scheduler is sched/backfill. A cycle over a queue of gated jobs
// finds nothing to test and leaves no trace in sdiag, so the recorder runs
// slurmctld with DebugFlags=Backfill and waits for the cycle's "no jobs to
// backfill" line in its log. The cycle is caused by a held job submitted
// now (it changes the job table; held, it is never tested or run), since
// the submissions' own cycles may be over.
func (l *lab) afterBackfillCycle(common []string) error {
	if !l.backfill {
		return nil
	}
	off := l.logSize()
	if _, errs, err := l.cmd("sbatch", append([]string{"--hold", "--job-name=sync", "--nodes=1", "--time=1"}, common...)...); err != nil {
		return fmt.Errorf("sync job: %v: %s", err, errs)
	}
	for range 1500 {
		if b, err := os.ReadFile(l.ctldLog); err == nil && int64(len(b)) > off &&
			strings.Contains(string(b[off:]), "no jobs to backfill") {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("no backfill cycle within 15 s of the sync job")
}

// cycles is sdiag's count of main-pass and backfill cycles (0 when sdiag
// cannot be read).
func (l *lab) cycles() (main, backfill int) {
	out, _, err := l.cmd("sdiag")
	if err != nil {
		return 0, 0
	}
	m := parseSdiag(out)
	main, _ = strconv.Atoi(m["main Total cycles"])
	backfill, _ = strconv.Atoi(m["backfill Total cycles"])
	return main, backfill
}

// logSize is the size of slurmctld's log.
func (l *lab) logSize() int64 {
	fi, err := os.Stat(l.ctldLog)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// readQueue reads every job: squeue for state, reason (with its detail),
// nodes, start or expected start, planned nodes, priority and submit time;
// scontrol for the eligible time of jobs held by --begin, the pass that
// started each running job (Scheduler=Main or Backfill) and its end, and
// the restarts (requeues by preemption); with record -events also each
// running job's CPUs per node (scontrol -d), which the node list alone
// does not say for a job of several tasks on shared nodes.
func (l *lab) readQueue() (map[string]Outcome, error) {
	out, errs, err := l.cmd("squeue", "-h", "-t", "all", "-o", "%i|%T|%r|%N|%S|%Y|%Q|%V")
	if err != nil {
		return nil, fmt.Errorf("squeue: %v: %s", err, errs)
	}
	got := map[string]Outcome{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 8 {
			continue
		}
		o := Outcome{State: f[1], Reason: f[2]}
		o.JobID, _ = strconv.ParseUint(f[0], 10, 32)
		start, _ := strconv.ParseInt(f[4], 10, 64)
		o.Priority, _ = strconv.ParseUint(f[6], 10, 32)
		o.SubmitEpoch, _ = strconv.ParseInt(f[7], 10, 64)
		if o.State == "PENDING" {
			o.SqueueStart = start
			if f[5] != "(null)" && f[5] != "" {
				o.SqueueNodes = f[5]
			}
		} else {
			o.StartEpoch = start
			if f[3] != "" {
				o.Nodes = f[3]
			}
			if o.Reason == "None" {
				o.Reason = ""
			}
		}
		got[f[0]] = o
	}
	showArgs := []string{"show", "job"}
	if l.events {
		showArgs = append([]string{"-d"}, showArgs...)
	}
	show, _, _ := l.cmd("scontrol", showArgs...)
	for _, rec := range strings.Split(show, "\n\n") {
		fields := map[string]string{}
		var perNode []Node
		for _, line := range strings.Split(rec, "\n") {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "Nodes=") && strings.Contains(t, "CPU_IDs=") {
				perNode = append(perNode, parseNodeLine(t, l.threads)...)
			}
		}
		for _, kv := range strings.Fields(rec) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				if _, seen := fields[k]; !seen {
					fields[k] = v
				}
			}
		}
		o, ok := got[fields["JobId"]]
		if !ok {
			continue
		}
		if o.State == "PENDING" && o.Reason == "BeginTime" {
			o.EligibleEpoch, _ = strconv.ParseInt(fields["EligibleTime"], 10, 64)
		}
		if o.State == "RUNNING" {
			o.StartedBy = fields["Scheduler"]
			// The limit it runs with: select_nodes' or backfill's.
			o.EndEpoch, _ = strconv.ParseInt(fields["EndTime"], 10, 64)
			o.PerNode = perNode
		}
		o.Restarts, _ = strconv.Atoi(fields["Restarts"])
		got[fields["JobId"]] = o
	}
	return got, nil
}

// schedSbatchArgs turns a scheduling spec into sbatch options. Beyond
// sbatchArgs' rule (key=value becomes --key=value): begin=+N is
// --begin=now+N (seconds), partition=a:b lists partitions, and @K in a
// dependency is the job id of the case's K-th submission; every job also
// depends on the gate job (afterany), if there is one.
func schedSbatchArgs(spec string, ids []string, gate string) ([]string, error) {
	args := []string{}
	var deps []string
	if gate != "" {
		deps = append(deps, "afterany:"+gate)
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, _ := strings.Cut(item, "=")
		switch k {
		case "begin":
			if rest, ok := strings.CutPrefix(v, "+"); ok {
				v = "now+" + rest
			}
		case "partition":
			v = strings.ReplaceAll(v, ":", ",")
		case "dependency":
			own, err := resolveDeps(v, ids)
			if err != nil {
				return nil, err
			}
			deps = append(deps, own)
			continue
		}
		if v == "" && !strings.Contains(item, "=") {
			args = append(args, "--"+k)
		} else {
			args = append(args, "--"+k+"="+v)
		}
	}
	if len(deps) > 0 {
		args = append(args, "--dependency="+strings.Join(deps, ","))
	}
	return args, nil
}

// resolveDeps replaces @K (the K-th submission) by its job id in a
// dependency list such as afterok:@1:@2.
func resolveDeps(v string, ids []string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '@' {
			b.WriteByte(v[i])
			continue
		}
		j := i + 1
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		k, err := strconv.Atoi(v[i+1 : j])
		if err != nil || k < 1 || k > len(ids) || ids[k-1] == "" {
			return "", errors.New("dependency " + v[i:j] + " names no earlier accepted submission")
		}
		b.WriteString(ids[k-1])
		i = j - 1
	}
	return b.String(), nil
}

// firstNode is the cluster's first node in slurm.conf order.
func (l *lab) firstNode() string {
	names := make([]string, 0, len(l.threads))
	for n := range l.threads {
		names = append(names, n)
	}
	sort.Slice(names, func(a, b int) bool { return nodeLess(names[a], names[b]) })
	return names[0]
}

// nodeLess orders n2 before n10.
func nodeLess(a, b string) bool {
	pa, na := splitNum(a)
	pb, nb := splitNum(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}
