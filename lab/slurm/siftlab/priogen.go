package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
)

// priogen writes priority scenario files (see PrioFile): per scenario a
// random association tree (2-4 levels of accounts, Fairshare values
// including Fairshare=parent, some association Priority values), random PriorityWeight*, PriorityFlags,
// PriorityFavorSmall, PriorityMaxAge, QOS priorities, partition
// PriorityJobFactor, nice values and job mixes.
func priogen(args []string) error {
	fs := flag.NewFlagSet("priogen", flag.ExitOnError)
	n := fs.Int("n", 20, "scenarios per file")
	files := fs.Int("files", 1, "number of files")
	seed := fs.Int64("seed", 1, "random seed")
	port := fs.Int("port", 27001, "slurmd port of the first node")
	first := fs.Int("first", 1, "number of the first file (prio-NN.json, accounts fNN...)")
	multi := fs.Bool("multipart", false, "submit one queued job in three to two partitions")
	out := fs.String("out", "", "directory to write prio-NN.json into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("priogen needs -out")
	}
	rng := rand.New(rand.NewSource(*seed))
	for f := *first - 1; f < *first-1+*files; f++ {
		pf := genPrioFile(rng, f, *n, *port, *multi)
		pf.GeneratedBy = "siftlab priogen " + strings.Join(args, " ")
		if err := writePrioFile(filepath.Join(*out, fmt.Sprintf("prio-%02d.json", f+1)), pf); err != nil {
			return err
		}
	}
	return nil
}

// prioNodes is the cluster of every scenario file: 4 nodes of 8 cores.
const prioNodes = 4

func genPrioFile(rng *rand.Rand, f, n, port int, multi bool) *PrioFile {
	var conf strings.Builder
	conf.WriteString("PriorityType=priority/multifactor\nPriorityCalcPeriod=1\n" +
		"SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n")
	for i := 1; i <= prioNodes; i++ {
		fmt.Fprintf(&conf, "NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=16000\n", i, port+i-1)
	}
	conf.WriteString(partitionLines([3]int{1, 1, 1}))
	pf := &PrioFile{
		SlurmConf: conf.String(),
		Sacctmgr: "add qos q1\nadd qos q2\nadd qos q3\n" +
			"add account base Description=base Organization=sift\n" +
			"modify account root set qos=normal,q1,q2,q3\n" +
			"add user @USER@ DefaultAccount=base Account=base\n",
	}
	for s := range n {
		pf.Scenarios = append(pf.Scenarios, genScenario(rng, fmt.Sprintf("f%02ds%02d", f+1, s+1), multi))
	}
	return pf
}

// partitionLines are the three partitions, all nodes each; usage is billed
// at 10000 a CPU so sshare's whole-number RawUsage keeps about six digits.
func partitionLines(factor [3]int) string {
	var b strings.Builder
	for i, jf := range factor {
		def := ""
		if i == 0 {
			def = " Default=YES"
		}
		fmt.Fprintf(&b, "PartitionName=p%d Nodes=ALL%s MaxTime=UNLIMITED State=UP PriorityJobFactor=%d TRESBillingWeights=CPU=10000\n", i+1, def, jf)
	}
	return b.String()
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.Intn(len(xs))] }

func genWeight(rng *rand.Rand) int {
	if rng.Intn(4) == 0 {
		return 0
	}
	if rng.Intn(3) == 0 {
		return 1 + rng.Intn(65535)
	}
	return pick(rng, []int{1, 10, 100, 1000, 10000, 100000})
}

// assocPriority is, one time in three, an association Priority (the
// association factor's input; children inherit it).
func assocPriority(rng *rand.Rand) string {
	if rng.Intn(3) > 0 {
		return ""
	}
	return fmt.Sprintf(" priority=%d", pick(rng, []int{1, 10, 100, 1000, 1 + rng.Intn(100000)}))
}

type prioAcct struct {
	name, parent string
	depth        int
}

// genScenario draws one scenario; with multi, one queued job in three asks
// for two partitions (sprio prints a row for each).
func genScenario(rng *rand.Rand, name string, multi bool) PrioScenario {
	s := PrioScenario{Name: name}
	var conf strings.Builder
	conf.WriteString("PriorityType=priority/multifactor\nPriorityCalcPeriod=1\n")
	// One scenario in five does not decay, so every usage is a whole
	// number of billing-seconds and sshare's RawUsage is exact.
	if hl := pick(rng, []int{0, 5, 10, 30, 60}); hl == 0 {
		conf.WriteString("PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE\n")
	} else {
		fmt.Fprintf(&conf, "PriorityDecayHalfLife=0-0:%02d\n", hl)
	}
	fmt.Fprintf(&conf, "PriorityMaxAge=0-0:%02d\n", pick(rng, []int{1, 2, 5, 10}))
	if rng.Intn(2) == 0 {
		conf.WriteString("PriorityFavorSmall=YES\n")
	}
	var flags []string
	for _, fl := range []string{"ACCRUE_ALWAYS", "SMALL_RELATIVE_TO_TIME", "CALCULATE_RUNNING", "MAX_TRES",
		"NO_NORMAL_ASSOC", "NO_NORMAL_PART", "NO_NORMAL_QOS", "NO_NORMAL_TRES"} {
		if rng.Intn(5) == 0 {
			flags = append(flags, fl)
		}
	}
	switch rng.Intn(10) {
	case 0, 1:
		flags = append(flags, "NO_FAIR_TREE")
	case 2:
		flags = append(flags, "DEPTH_OBLIVIOUS")
	}
	if len(flags) > 0 {
		fmt.Fprintf(&conf, "PriorityFlags=%s\n", strings.Join(flags, ","))
	}
	for _, w := range []string{"Age", "Assoc", "Fairshare", "JobSize", "Partition", "QOS"} {
		fmt.Fprintf(&conf, "PriorityWeight%s=%d\n", w, genWeight(rng))
	}
	if rng.Intn(2) == 0 {
		var tres []string
		for _, t := range []string{"CPU", "Mem", "Node"} {
			if rng.Intn(3) > 0 {
				tres = append(tres, fmt.Sprintf("%s=%d", t, genWeight(rng)+1))
			}
		}
		if len(tres) > 0 {
			fmt.Fprintf(&conf, "PriorityWeightTRES=%s\n", strings.Join(tres, ","))
		}
	}
	var factor [3]int
	for i := range factor {
		factor[i] = pick(rng, []int{0, 1, 1, 10, 100, 1000, 1 + rng.Intn(65533)})
	}
	conf.WriteString(partitionLines(factor))
	s.Conf = conf.String()

	// The tree: 1-3 top accounts, each account above the deepest level
	// has 0-3 children; leaves and some inner accounts hold the user.
	levels := 2 + rng.Intn(3)
	var accts []prioAcct
	var grow func(parent string, depth int)
	grow = func(parent string, depth int) {
		kids := 1 + rng.Intn(3)
		if depth > 1 {
			kids = rng.Intn(4)
		}
		for range kids {
			a := prioAcct{name: fmt.Sprintf("%sa%d", s.Name, len(accts)+1), parent: parent, depth: depth}
			accts = append(accts, a)
			if depth < levels {
				grow(a.name, depth+1)
			}
		}
	}
	grow("root", 1)
	hasKids := map[string]bool{}
	for _, a := range accts {
		hasKids[a.parent] = true
	}
	var setup, names []string
	var users []string // accounts holding a user association
	for _, a := range accts {
		share := fmt.Sprint(1 + rng.Intn(100))
		if a.depth > 1 && rng.Intn(8) == 0 {
			share = "parent"
		}
		setup = append(setup, fmt.Sprintf("add account %s parent=%s fairshare=%s%s", a.name, a.parent, share, assocPriority(rng)))
		names = append(names, a.name)
		if !hasKids[a.name] || rng.Intn(3) == 0 {
			ushare := fmt.Sprint(1 + rng.Intn(100))
			if rng.Intn(10) == 0 {
				ushare = "parent"
			}
			setup = append(setup, fmt.Sprintf("add user @USER@ account=%s fairshare=%s%s", a.name, ushare, assocPriority(rng)))
			users = append(users, a.name)
		}
	}
	qos := []string{"normal", "q1", "q2", "q3"}
	for _, q := range qos {
		setup = append(setup, fmt.Sprintf("modify qos %s set priority=%d", q, pick(rng, []int{0, 0, 10, 100, 1000, rng.Intn(100000)})))
	}
	s.Setup = strings.Join(setup, "\n") + "\n"
	s.Cleanup = fmt.Sprintf("delete account name=%s\n", strings.Join(names, ","))

	cpus := 0
	for range 2 + rng.Intn(4) {
		c := 1 + rng.Intn(8)
		if cpus+c > prioNodes*8 {
			break
		}
		cpus += c
		s.Usage = append(s.Usage, PrioJob{Account: pick(rng, users), Partition: pick(rng, []string{"p1", "p2", "p3"}),
			Args: []string{fmt.Sprintf("--ntasks=%d", c)}, Sleep: float64(1 + rng.Intn(3))})
	}
	s.Blocker = PrioJob{Account: pick(rng, users), Partition: "p1", Args: []string{fmt.Sprintf("--nodes=%d", prioNodes), "--exclusive"}}
	for range 3 + rng.Intn(6) {
		j := PrioJob{Account: pick(rng, users), QOS: pick(rng, qos), Partition: pick(rng, []string{"p1", "p2", "p3"})}
		if multi && rng.Intn(3) == 0 {
			j.Partition = pick(rng, []string{"p1,p2", "p1,p3", "p2,p3", "p3,p1"})
		}
		if rng.Intn(3) == 0 {
			j.Nice = pick(rng, []int{-100, 10, 100, 1000, rng.Intn(10000)})
		}
		if rng.Intn(3) == 0 {
			j.Args = append(j.Args, fmt.Sprintf("--nodes=%d", 1+rng.Intn(prioNodes)), "--exclusive")
		} else {
			j.Args = append(j.Args, fmt.Sprintf("--ntasks=%d", 1+rng.Intn(prioNodes*8)))
		}
		if rng.Intn(2) == 0 {
			j.Args = append(j.Args, fmt.Sprintf("--mem-per-cpu=%d", pick(rng, []int{100, 500, 1000, 2000})))
		}
		if rng.Intn(2) == 0 {
			j.Args = append(j.Args, fmt.Sprintf("--time=%d", pick(rng, []int{1, 10, 60, 600, 1440})))
		}
		if rng.Intn(3) == 0 {
			j.Sleep = float64(1 + rng.Intn(2))
		}
		s.Queue = append(s.Queue, j)
	}
	return s
}
