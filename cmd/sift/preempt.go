package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
	"github.com/spf13/cobra"
)

// preemptFlags are schedule's preemption flags; each overrides the
// slurm.conf key of the same name.
type preemptFlags struct {
	typ, mode, exempt, params string
}

func (f *preemptFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.typ, "preempt-type", "", "PreemptType: preempt/none, preempt/partition_prio or preempt/qos (default: the slurm.conf's)")
	fl.StringVar(&f.mode, "preempt-mode", "", "PreemptMode: OFF, CANCEL, REQUEUE or SUSPEND,GANG (default: the slurm.conf's)")
	fl.StringVar(&f.exempt, "preempt-exempt-time", "", "PreemptExemptTime: jobs that ran less are not preempted (default: the slurm.conf's)")
	fl.StringVar(&f.params, "preempt-parameters", "", "PreemptParameters, e.g. youngest_first,min_exempt_priority=N (default: the slurm.conf's)")
}

// preemptConfig is the cluster's preemption: slurm.conf's PreemptType,
// PreemptMode, PreemptExemptTime, PreemptParameters, KillWait and
// MessageTimeout, then the flags; the QOS settings come from pol (nil
// without --limits). The partitions' PreemptMode and GraceTime go into
// parts, PreemptParameters' strict_order and reorder_count into cfg.
func preemptConfig(cmd *cobra.Command, f *preemptFlags, inv *inventory.Cluster, pol *limits.Policy, parts map[string]sched.Partition, cfg *sched.Config, schedParams string) (sched.Preemption, error) {
	conf := func(key, flag string, val string) string {
		if cmd.Flags().Changed(flag) {
			return val
		}
		return inv.Preempt[key]
	}
	var pc sched.Preemption
	var err error
	if pc.Type, err = sched.ParsePreemptType(conf("preempttype", "preempt-type", f.typ)); err != nil {
		return pc, invalidInput(err)
	}
	pc.Mode = sched.PreemptOff
	if m := conf("preemptmode", "preempt-mode", f.mode); m != "" {
		if pc.Mode, pc.Flags, err = sched.ParsePreemptMode(m); err != nil {
			return pc, invalidInput(err)
		}
	}
	if e := conf("preemptexempttime", "preempt-exempt-time", f.exempt); e != "" && !strings.EqualFold(e, "-1") {
		d, err := job.ParseTimeSeconds(e)
		if err != nil {
			return pc, invalidInput(fmt.Errorf("PreemptExemptTime %q: %w", e, err))
		}
		if d != job.Unlimited {
			pc.ExemptTime = d
		}
	}
	params := conf("preemptparameters", "preempt-parameters", f.params)
	lower := strings.ToLower(params + "," + schedParams)
	pc.YoungestFirst = strings.Contains(lower, "youngest_first")
	if strings.Contains(strings.ToLower(params), "strict_order") {
		cfg.PreemptStrictOrder = true
	}
	for _, opt := range strings.Split(params, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(opt), "=")
		if ok && strings.EqualFold(k, "reorder_count") {
			n, err := strconv.ParseUint(v, 10, 31)
			if err != nil {
				return pc, invalidInput(fmt.Errorf("PreemptParameters reorder_count=%q: expected an integer", v))
			}
			cfg.PreemptReorderCount = int(n)
		}
		if ok && strings.EqualFold(k, "min_exempt_priority") {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return pc, invalidInput(fmt.Errorf("PreemptParameters min_exempt_priority=%q: expected an integer", v))
			}
			pc.MinExemptPriority = uint32(n)
		}
	}
	pc.KillWait = secondsKey(inv.Preempt["killwait"], 30) + secondsKey(inv.Preempt["messagetimeout"], 10)
	for _, p := range inv.Partitions {
		sp := parts[p.Name]
		if p.PreemptMode != "" {
			m, _, err := sched.ParsePreemptMode(p.PreemptMode)
			if err != nil {
				return pc, invalidInput(fmt.Errorf("partition %s: %w", p.Name, err))
			}
			sp.PreemptMode = m
		}
		sp.GraceTime = time.Duration(p.GraceTime) * time.Second
		parts[p.Name] = sp
	}
	if pol != nil {
		pc.QOS = map[string]sched.QOSPreempt{}
		for _, q := range pol.QOSList() {
			qp := sched.QOSPreempt{Priority: q.Priority, Preempt: q.Preempt, GraceTime: time.Duration(q.GraceTime) * time.Second}
			if q.PreemptMode != "" {
				if qp.Mode, qp.Flags, err = sched.ParsePreemptMode(q.PreemptMode); err != nil {
					return pc, invalidInput(fmt.Errorf("QOS %s: %w", q.Name, err))
				}
			}
			pc.QOS[q.Name] = qp
		}
	}
	if err := pc.Validate(); err != nil {
		return pc, invalidInput(err)
	}
	return pc, nil
}

// secondsKey is a slurm.conf value in seconds, def when unset or bad.
func secondsKey(v string, def int) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}

// schedulePreempted is one preemption of schedule's answer.
type schedulePreempted struct {
	Victim    uint32 `json:"job_id"`
	Preemptor uint32 `json:"preemptor"`
	Mode      string `json:"mode"`
	End       int64  `json:"end"`
}

// preemptedRows converts a pass's preemptions.
func preemptedRows(p *sched.Pass) []schedulePreempted {
	var out []schedulePreempted
	for _, e := range p.Preempted {
		out = append(out, schedulePreempted{Victim: e.Victim, Preemptor: e.Preemptor, Mode: e.Mode.String(), End: e.End})
	}
	return out
}

// partitionOrder is the partitions' names in slurm.conf order.
func partitionOrder(parts []inventory.Partition) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Name
	}
	return out
}
