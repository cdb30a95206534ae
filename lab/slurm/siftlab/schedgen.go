package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
)

// schedgen writes files of random scheduling cases (mode schedule): each
// file is one cluster (4-64 nodes of one or two shapes, one to three
// partitions that may overlap, sched/backfill or sched/builtin,
// select/cons_tres or select/linear, bf_interval=1 and some other knobs)
// and each case one queue of 10-300 jobs on it: sizes, partitions,
// explicit priorities (with ties), time limits, node lists and excluded
// nodes, dependencies, begin times, now and then a drained node.
// Everything is drawn from one seed, so the files are reproducible.
func schedgen(args []string) error {
	fs := flag.NewFlagSet("schedgen", flag.ExitOnError)
	bfInterval := fs.Int("bf-interval", 3, "bf_interval of every cluster (1 races the release's main pass; see sched.go)")
	return genFiles(fs, args, 10, "sched", "s", func(rng *rand.Rand) (*Recording, func(*rand.Rand, string) Case) {
		g := randomCluster(rng, *bfInterval)
		return &Recording{SlurmConf: g.conf}, g.randomQueue
	})
}

// genFiles parses a generator's flags (-files, -n, -seed, -out, and any
// the generator added to fs, which names it) and
// writes -files files PREFIX-SEED-NN.json into -out: each holds a cluster
// drawn by cluster and -n cases (named CASEPREFIX<seed>-NN-KK) drawn by
// the function it returns; one generator seeded by -seed draws them all.
func genFiles(fs *flag.FlagSet, args []string, defFiles int, prefix, casePrefix string, cluster func(*rand.Rand) (*Recording, func(*rand.Rand, string) Case)) error {
	cmd := fs.Name()
	files := fs.Int("files", defFiles, "number of files (clusters)")
	n := fs.Int("n", 10, "cases per file")
	seed := fs.Int64("seed", 1, "random seed")
	out := fs.String("out", "", "directory to write "+prefix+"-SEED-NN.json into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New(cmd + " needs -out")
	}
	rng := rand.New(rand.NewSource(*seed))
	for f := 1; f <= *files; f++ {
		rec, draw := cluster(rng)
		rec.RecordedBy = "siftlab " + cmd + " " + strings.Join(args, " ")
		for k := 1; k <= *n; k++ {
			rec.Cases = append(rec.Cases, draw(rng, fmt.Sprintf("%s%d-%02d-%02d", casePrefix, *seed, f, k)))
		}
		name := filepath.Join(*out, fmt.Sprintf("%s-%d-%02d.json", prefix, *seed, f))
		if err := writeRecording(name, rec); err != nil {
			return err
		}
	}
	return nil
}

// genCluster is a random cluster and what its jobs may ask of it.
type genCluster struct {
	conf    string
	nodes   int
	cpus    int // the smallest node's CPUs
	linear  bool
	parts   []genPart
	maxTime bool // some partition has a MaxTime
}

type genPart struct {
	name   string
	lo, hi int // nodes n<lo>..n<hi>
	down   bool
}

func randomCluster(rng *rand.Rand, bfInterval int) *genCluster {
	g := &genCluster{nodes: 4 + rng.Intn(61), linear: rng.Intn(3) == 0}
	var b strings.Builder
	sched := "sched/backfill"
	if rng.Intn(10) < 3 {
		sched = "sched/builtin"
	}
	sel := "select/cons_tres"
	if g.linear {
		sel = "select/linear"
	}
	fmt.Fprintf(&b, "SchedulerType=%s\nSelectType=%s\n", sched, sel)
	params := schedParams(bfInterval)
	if rng.Intn(2) == 0 {
		params = append(params, fmt.Sprintf("bf_resolution=%d", []int{30, 60, 120, 300}[rng.Intn(4)]))
	}
	if rng.Intn(4) == 0 {
		params = append(params, fmt.Sprintf("default_queue_depth=%d", 5+rng.Intn(60)))
	}
	if rng.Intn(5) == 0 {
		params = append(params, fmt.Sprintf("bf_max_job_test=%d", 10+rng.Intn(100)))
	}
	if rng.Intn(8) == 0 {
		params = append(params, fmt.Sprintf("partition_job_depth=%d", 2+rng.Intn(20)))
	}
	if rng.Intn(8) == 0 {
		params = append(params, fmt.Sprintf("bf_window=%d", 60+rng.Intn(300)))
	}
	fmt.Fprintf(&b, "SchedulerParameters=%s\n", strings.Join(params, ","))
	if !g.linear {
		fmt.Fprintf(&b, "DefMemPerCPU=%d\n", 250*(1+rng.Intn(4)))
	}
	g.randomNodes(rng, &b, 17000)
	np := 1 + rng.Intn(3)
	for p := 0; p < np; p++ {
		part := genPart{name: []string{"main", "short", "big"}[p], lo: 1, hi: g.nodes}
		if p > 0 {
			part.lo = 1 + rng.Intn(g.nodes)
			part.hi = part.lo + rng.Intn(g.nodes-part.lo+1)
			part.down = rng.Intn(8) == 0
		}
		line := fmt.Sprintf("PartitionName=%s Nodes=n[%d-%d]", part.name, part.lo, part.hi)
		if part.lo == part.hi {
			line = fmt.Sprintf("PartitionName=%s Nodes=n%d", part.name, part.lo)
		}
		if p == 0 {
			line += " Default=YES"
		}
		if rng.Intn(4) == 0 {
			line += fmt.Sprintf(" MaxTime=%d", []int{60, 120, 240}[rng.Intn(3)])
			g.maxTime = true
		} else {
			line += " MaxTime=UNLIMITED"
		}
		if rng.Intn(4) == 0 {
			line += " DefaultTime=30"
		}
		if p > 0 && rng.Intn(5) == 0 {
			line += fmt.Sprintf(" PriorityTier=%d", 2+rng.Intn(3))
		}
		if part.down {
			line += " State=DOWN"
		} else {
			line += " State=UP"
		}
		fmt.Fprintln(&b, line)
		g.parts = append(g.parts, part)
	}
	g.conf = b.String()
	return g
}

// randomNodes writes g.nodes NodeName lines (slurmd ports from port+1)
// of one shape, or of two split at a random node, and sets g.cpus to the
// smallest node's CPUs; it returns each node's CPUs, n1 first.
func (g *genCluster) randomNodes(rng *rand.Rand, b *strings.Builder, port int) []int {
	shapes := [][2]int{{4, 1}, {8, 1}, {8, 2}, {16, 2}}
	a, c := shapes[rng.Intn(len(shapes))], shapes[rng.Intn(len(shapes))]
	split := g.nodes + 1
	if rng.Intn(3) == 0 {
		split = 1 + rng.Intn(g.nodes)
	}
	g.cpus = a[0]
	if split <= g.nodes {
		g.cpus = min(a[0], c[0])
	}
	cpus := make([]int, 0, g.nodes)
	for i := 1; i <= g.nodes; i++ {
		s := a
		if i >= split {
			s = c
		}
		cpus = append(cpus, s[0])
		fmt.Fprintf(b, "NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=%d Sockets=%d CoresPerSocket=%d ThreadsPerCore=1 RealMemory=%d\n",
			i, port+i, s[0], s[1], s[0]/s[1], 1000*s[0])
	}
	return cpus
}

// randomQueue draws one case: 10-300 jobs (most below 100).
func (g *genCluster) randomQueue(rng *rand.Rand, name string) Case {
	u := rng.Float64()
	njobs := 10 + int(290*u*u)
	c := Case{Name: name, Mode: "schedule", Wait: float64(defaultWait + 2*(njobs/100))}
	if rng.Intn(5) == 0 {
		lo := 1 + rng.Intn(g.nodes)
		if rng.Intn(2) == 0 || lo == g.nodes {
			c.Drained = fmt.Sprintf("n%d", lo)
		} else {
			c.Drained = fmt.Sprintf("n[%d-%d]", lo, lo+1)
		}
	}
	basePrio := 1000 + rng.Intn(1000)
	for i := 0; i < njobs; i++ {
		c.Jobs = append(c.Jobs, Job{Spec: g.randomJob(rng, i, basePrio)})
	}
	return c
}

// randomJob draws one job of a queue; i is its index (dependencies name
// earlier jobs only).
func (g *genCluster) randomJob(rng *rand.Rand, i, basePrio int) string {
	var p []string
	part := g.parts[0]
	if len(g.parts) > 1 && rng.Intn(2) == 0 {
		part = g.parts[rng.Intn(len(g.parts))]
		other := g.parts[rng.Intn(len(g.parts))]
		if other.name != part.name && rng.Intn(6) == 0 {
			p = append(p, "partition="+part.name+":"+other.name)
		} else {
			p = append(p, "partition="+part.name)
		}
	}
	size := part.hi - part.lo + 1
	switch rng.Intn(4) {
	case 0:
		p = append(p, fmt.Sprintf("nodes=%d", 1+rng.Intn(max(1, min(size, 8)/2+1))))
		if rng.Intn(2) == 0 {
			p = append(p, "exclusive")
		}
	case 1:
		p = append(p, fmt.Sprintf("ntasks=%d", 1+rng.Intn(2*g.cpus)))
	case 2:
		p = append(p, fmt.Sprintf("ntasks=%d", 1+rng.Intn(g.cpus)), fmt.Sprintf("cpus-per-task=%d", 1+rng.Intn(2)))
	default:
		p = append(p, "ntasks=1")
	}
	if !g.linear && rng.Intn(5) == 0 {
		p = append(p, fmt.Sprintf("mem-per-cpu=%d", 250*(1+rng.Intn(4))))
	}
	if rng.Intn(10) > 0 || !g.maxTime {
		p = append(p, fmt.Sprintf("time=%d", []int{5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300}[rng.Intn(12)]))
	}
	switch r := rng.Intn(25); {
	case r == 0 && size > 1:
		lo := part.lo + rng.Intn(size)
		hi := min(part.hi, lo+rng.Intn(3))
		p = append(p, "nodelist="+nodeRange(lo, hi))
	case r == 1 && size > 2:
		lo := part.lo + rng.Intn(size)
		p = append(p, "exclude="+nodeRange(lo, min(part.hi, lo+rng.Intn(2))))
	case r == 2 && i > 0:
		kind := []string{"afterok", "afterany", "after", "afternotok"}[rng.Intn(4)]
		p = append(p, fmt.Sprintf("dependency=%s:@%d", kind, 1+rng.Intn(i)))
	case r == 3:
		p = append(p, "dependency=singleton", "job-name=single")
	case r == 4:
		p = append(p, fmt.Sprintf("begin=+%d", 300+rng.Intn(3300)))
	}
	if rng.Intn(10) > 0 {
		// Ties now and then: equal priorities fall back to submit order.
		p = append(p, fmt.Sprintf("priority=%d", basePrio+rng.Intn(300)))
	}
	return strings.Join(p, ",")
}

// schedParams are the SchedulerParameters every generated cluster starts
// with. bf_interval comes first: sched/builtin reads its own period from
// the first "interval=" in the string (xstrcasestr). bf_interval=3 leaves
// the main pass the first second after the release (sched.go); with 1 the
// backfill cycle may come first (a cluster under sched/builtin then also
// estimates starts every second); the long
// bf_max_time, bf_yield_interval and max_sched_time keep wall-clock cuts
// out of the answers; sched_interval=600 keeps the periodic full pass out
// of a file's recording.
func schedParams(bfInterval int) []string {
	return []string{fmt.Sprintf("bf_interval=%d", bfInterval), "bf_max_time=60", "bf_yield_interval=10000000", "max_sched_time=60", "batch_sched_delay=0", "sched_interval=600"}
}

func nodeRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("n%d", lo)
	}
	return fmt.Sprintf("n[%d-%d]", lo, hi)
}
