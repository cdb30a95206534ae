package main

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
)

// preemptgen writes files of random preemption cases: each file is one
// cluster (4-64 nodes of one or two shapes, select/cons_tres or
// select/linear, sched/backfill or sched/builtin) under
// preempt/partition_prio (two or three overlapping partitions of
// PriorityTier 1, 5 and 10, the last at times the same as the second,
// each PreemptMode CANCEL, REQUEUE, SUSPEND with GANG, OFF (the second) or
// the cluster's) or preempt/qos (QOS with Preempt lists and PreemptMode,
// in slurmdbd), and each case
// first starts jobs on part of the cluster one by one (Case.Running), then
// releases a queue of 10-300 jobs of higher and lower tiers, QOS and
// priorities behind the gate, as a scheduling case (sched.go) does.
// Everything is drawn from one seed, so the files are reproducible.
//
// No GraceTime: slurmctld ends a victim's grace time at its time-limit
// check, every 30 s (PERIODIC_TIMEOUT) from its own start, a phase a
// recording does not fix; the hand-written scenarios cover grace time.
func preemptgen(args []string) error {
	return genFiles(flag.NewFlagSet("preemptgen", flag.ExitOnError), args, 4, "preempt", "p", func(rng *rand.Rand) (*Recording, func(*rand.Rand, string) Case) {
		g := randomPreemptCluster(rng)
		return &Recording{SlurmConf: g.conf, Sacctmgr: g.sacctmgr}, g.randomCase
	})
}

// preemptCluster is a random preemption cluster and what its jobs may ask.
type preemptCluster struct {
	genCluster
	sacctmgr string
	// qos are the QOS jobs name (preempt/qos), lowest first; tiers the
	// partitions' PriorityTier, in parts' order.
	qos   []string
	tiers []int
	cores []int // CPUs of each node, n1 first
}

// preemptQOS are the QOS of a preempt/qos cluster, lowest first, and whom
// each may preempt; "other" is in no Preempt list.
var preemptQOS = []struct{ name, preempt string }{
	{"low", ""}, {"other", ""}, {"normal", "low"}, {"high", "normal,low"},
}

func randomPreemptCluster(rng *rand.Rand) *preemptCluster {
	g := &preemptCluster{genCluster: genCluster{nodes: 4 + rng.Intn(61), linear: rng.Intn(3) == 0}}
	qos := rng.Intn(3) == 0
	gang := !qos && rng.Intn(3) == 0
	var b strings.Builder
	sched := "sched/backfill"
	if rng.Intn(10) < 3 {
		sched = "sched/builtin"
	}
	fmt.Fprintf(&b, "SchedulerType=%s\n", sched)
	switch {
	case g.linear:
		fmt.Fprintln(&b, "SelectType=select/linear")
	case gang || rng.Intn(2) == 0:
		// A suspended job keeps its memory: the lab's gang scenarios
		// track cores only.
		fmt.Fprintln(&b, "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core")
	default:
		fmt.Fprintf(&b, "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=%d\n", 250*(1+rng.Intn(4)))
	}
	// requeue_delay keeps a requeued victim pending (BeginTime) until
	// the case is read.
	params := append(schedParams(3), "requeue_delay=600")
	if rng.Intn(2) == 0 {
		params = append(params, fmt.Sprintf("bf_resolution=%d", []int{30, 60, 120, 300}[rng.Intn(4)]))
	}
	fmt.Fprintf(&b, "SchedulerParameters=%s\n", strings.Join(params, ","))
	mode := []string{"CANCEL", "REQUEUE"}[rng.Intn(2)]
	ptype := "preempt/partition_prio"
	if qos {
		ptype = "preempt/qos"
	}
	if gang {
		mode = "SUSPEND,GANG"
	}
	// KillWait=2 ends a killed job quickly, as the hand-written cases do;
	// MinJobAge keeps a cancelled victim to be read with the queue.
	fmt.Fprintf(&b, "PreemptType=%s\nPreemptMode=%s\nKillWait=2\nMinJobAge=600\n", ptype, mode)
	g.cores = g.randomNodes(rng, &b, 22000)
	np := 2 + rng.Intn(2)
	if qos {
		np = 1 + rng.Intn(3)
	}
	for p := 0; p < np; p++ {
		part := genPart{name: []string{"low", "mid", "high"}[p], lo: 1, hi: g.nodes}
		if p > 0 && rng.Intn(2) == 0 {
			part.lo = 1 + rng.Intn(g.nodes)
			part.hi = part.lo + rng.Intn(g.nodes-part.lo+1)
		}
		line := "PartitionName=" + part.name + " Nodes=" + nodeRange(part.lo, part.hi)
		if p == 0 {
			line += " Default=YES"
		}
		tier := 1
		if !qos || rng.Intn(4) == 0 {
			// Now and then two partitions share a tier (no preemption
			// between them).
			tier = []int{1, 5, 10}[p]
			if p == 2 && rng.Intn(5) == 0 {
				tier = g.tiers[p-1]
			}
		}
		line += fmt.Sprintf(" PriorityTier=%d", tier)
		if !qos {
			modes := []string{"", "", "CANCEL", "REQUEUE"}
			if p == 1 {
				modes = append(modes, "OFF")
			}
			if gang {
				modes = append(modes, "SUSPEND", "SUSPEND")
			}
			if m := modes[rng.Intn(len(modes))]; m != "" {
				line += " PreemptMode=" + m
			}
		}
		fmt.Fprintln(&b, line+" MaxTime=UNLIMITED State=UP")
		g.parts = append(g.parts, part)
		g.tiers = append(g.tiers, tier)
	}
	g.conf = b.String()
	if qos {
		var s strings.Builder
		// A QOS must exist before another's Preempt= names it;
		// slurmdbd makes "normal" itself.
		for i, q := range preemptQOS {
			verb := "add qos " + q.name
			if q.name == "normal" {
				verb = "modify qos normal set"
			}
			fmt.Fprintf(&s, "%s Priority=%d", verb, 10*(i+1))
			if q.preempt != "" {
				fmt.Fprintf(&s, " Preempt=%s", q.preempt)
			}
			if m := []string{"", "cancel", "requeue"}[rng.Intn(3)]; m != "" {
				fmt.Fprintf(&s, " PreemptMode=%s", m)
			}
			s.WriteString("\n")
			g.qos = append(g.qos, q.name)
		}
		fmt.Fprintf(&s, "add account lab\nadd user @USER@ account=lab qos=%s defaultqos=normal\n", strings.Join(g.qos, ","))
		g.sacctmgr = s.String()
	}
	return g
}

// randomCase draws one case: jobs started first on part of the cluster,
// then a queue of 10-300 jobs (most below 100).
func (g *preemptCluster) randomCase(rng *rand.Rand, name string) Case {
	u := rng.Float64()
	njobs := 10 + int(290*u*u)
	c := Case{Name: name, Mode: "schedule", Wait: float64(defaultWait + 2*(njobs/100))}
	basePrio := 1000 + rng.Intn(1000)
	// Free cores of each node as the running jobs take them, lowest
	// nodes first as Slurm mostly does; a job that would not fit is
	// not drawn.
	free := append([]int(nil), g.cores...)
	fill := g.nodes * (5 + rng.Intn(6)) / 10
	for tries := 0; tries < 60 && c.Running < 40; tries++ {
		used := 0
		for i, f := range free {
			if f < g.cores[i] {
				used++
			}
		}
		if used >= fill {
			break
		}
		if spec, ok := g.runningJob(rng, free, basePrio); ok {
			c.Jobs = append(c.Jobs, Job{Spec: spec})
			c.Running++
		}
	}
	for range njobs {
		c.Jobs = append(c.Jobs, Job{Spec: g.queuedJob(rng, basePrio)})
	}
	return c
}

// lowPart draws the partition of a job meant to be preempted: under
// preempt/qos any, else mostly the lowest tier.
func (g *preemptCluster) lowPart(rng *rand.Rand) int {
	if g.qos != nil || rng.Intn(4) > 0 {
		return 0
	}
	return rng.Intn(len(g.parts))
}

// runningJob draws a job that fits the free cores now (whole nodes, or
// cores of one node under cons_tres) and takes them from free.
func (g *preemptCluster) runningJob(rng *rand.Rand, free []int, basePrio int) (string, bool) {
	pi := g.lowPart(rng)
	part := g.parts[pi]
	var p []string
	if pi > 0 {
		p = append(p, "partition="+part.name)
	}
	if !g.linear && rng.Intn(3) == 0 {
		k := 1 + rng.Intn(g.cpus)
		for n := part.lo; n <= part.hi; n++ {
			if free[n-1] >= k {
				free[n-1] -= k
				p = append(p, "nodes=1", fmt.Sprintf("ntasks=%d", k))
				return g.finish(rng, p, true, basePrio), true
			}
		}
		return "", false
	}
	want := 1 + rng.Intn(4)
	var idle []int
	for n := part.lo; n <= part.hi && len(idle) < want; n++ {
		if free[n-1] == g.cores[n-1] {
			idle = append(idle, n)
		}
	}
	if len(idle) < want {
		return "", false
	}
	for _, n := range idle {
		free[n-1] = 0
	}
	p = append(p, fmt.Sprintf("nodes=%d", want), "exclusive")
	return g.finish(rng, p, true, basePrio), true
}

// queuedJob draws a job of the queue released behind the gate: any
// partition, QOS and size, most of them in higher tiers or QOS.
func (g *preemptCluster) queuedJob(rng *rand.Rand, basePrio int) string {
	var p []string
	pi := 0
	if len(g.parts) > 1 && rng.Intn(4) > 0 {
		pi = 1 + rng.Intn(len(g.parts)-1)
	}
	part := g.parts[pi]
	if pi > 0 {
		p = append(p, "partition="+part.name)
	}
	size := part.hi - part.lo + 1
	switch rng.Intn(4) {
	case 0, 1:
		p = append(p, fmt.Sprintf("nodes=%d", 1+rng.Intn(max(1, min(size, 8)/2+1))))
		if rng.Intn(2) == 0 {
			p = append(p, "exclusive")
		}
	case 2:
		p = append(p, fmt.Sprintf("ntasks=%d", 1+rng.Intn(2*g.cpus)))
	default:
		p = append(p, "ntasks=1")
	}
	switch r := rng.Intn(20); {
	case r == 0 && size > 1:
		lo := part.lo + rng.Intn(size)
		p = append(p, "nodelist="+nodeRange(lo, min(part.hi, lo+rng.Intn(3))))
	case r == 1 && size > 2:
		lo := part.lo + rng.Intn(size)
		p = append(p, "exclude="+nodeRange(lo, min(part.hi, lo+rng.Intn(2))))
	}
	return g.finish(rng, p, false, basePrio)
}

// finish adds a job's QOS (low ones for running jobs), time limit and
// priority.
func (g *preemptCluster) finish(rng *rand.Rand, p []string, running bool, basePrio int) string {
	if g.qos != nil {
		q := g.qos[rng.Intn(len(g.qos))]
		if running && rng.Intn(4) > 0 {
			q = g.qos[rng.Intn(3)]
		} else if !running && rng.Intn(2) == 0 {
			q = g.qos[len(g.qos)-1]
		}
		p = append(p, "account=lab", "qos="+q)
	}
	p = append(p, fmt.Sprintf("time=%d", []int{5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300}[rng.Intn(12)]))
	// Ties now and then: equal priorities fall back to submit order.
	return strings.Join(append(p, fmt.Sprintf("priority=%d", basePrio+rng.Intn(300))), ",")
}
