// Command scenarios writes seeded random accounting-limit case files for
// the lab's recorder (siftlab record): each file is one cluster ("world")
// with its own association tree, QOS and partitions, and many job streams
// run against it one after another.
//
//	go run ./lab/slurm/limits/scenarios -seed S -worlds W -cases C -port P -out DIR
//
// writes DIR/rand-S-WW.json for WW in 1..W. The same arguments always
// write the same files.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// caseFile is the shape siftlab reads (a recording without answers).
type caseFile struct {
	SlurmConf  string     `json:"slurm_conf"`
	GresConf   string     `json:"gres_conf"`
	Sacctmgr   string     `json:"sacctmgr"`
	RecordedBy string     `json:"recorded_by"`
	Cases      []caseStep `json:"cases"`
}

type caseStep struct {
	Name string `json:"name"`
	Mode string `json:"mode"`
	Jobs []step `json:"jobs"`
}

type step struct {
	Spec   string   `json:"spec"`
	Action string   `json:"action,omitempty"`
	Slurm  struct{} `json:"slurm"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "scenarios:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("scenarios", flag.ContinueOnError)
	seed := fs.Int64("seed", 1, "random seed")
	worlds := fs.Int("worlds", 1, "number of case files (clusters)")
	cases := fs.Int("cases", 15, "job streams per file")
	port := fs.Int("port", 17001, "slurmd Port= of the first node")
	out := fs.String("out", "", "directory to write into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for w := 1; w <= *worlds; w++ {
		cf := generate(*seed, w, *cases, *port)
		cf.RecordedBy = "scenarios " + strings.Join(args, " ")
		b, err := json.MarshalIndent(cf, "", " ")
		if err != nil {
			return err
		}
		path := filepath.Join(*out, fmt.Sprintf("rand-%d-%02d.json", *seed, w))
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// world is one generated cluster: what jobs may name and how they are
// sized, kept to draw job streams whose sizes are near the limits.
type world struct {
	rng        *rand.Rand
	qos        []string // job QOS a job may ask for (besides normal)
	partitions []string
	accounts   []string   // accounts the user has an association in
	allowed    [][]string // per account, the QOS its association may use
	others     []string   // accounts the user has none in
}

// Cluster shape: 4 nodes of 8 cores and 16000 MB, so limits drawn from
// these ranges bite with jobs of one to a dozen CPUs.
const (
	nodes      = 4
	cpusPerN   = 8
	memPerNode = 16000
)

func generate(seed int64, w, ncases, port int) *caseFile {
	rng := rand.New(rand.NewSource(seed*1000 + int64(w)))
	wd := &world{rng: rng}
	var conf strings.Builder
	conf.WriteString("PriorityType=priority/multifactor\nPriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE\n")
	conf.WriteString("SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n")
	enforce := "associations,limits,qos"
	if rng.Intn(6) == 0 {
		enforce += ",safe"
	}
	fmt.Fprintf(&conf, "AccountingStorageEnforce=%s\n", enforce)
	for i := 1; i <= nodes; i++ {
		fmt.Fprintf(&conf, "NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=%d Sockets=1 CoresPerSocket=%d ThreadsPerCore=1 RealMemory=%d\n",
			i, port+i-1, cpusPerN, cpusPerN, memPerNode)
	}
	var sacct strings.Builder

	// Job QOS, one to three, with random flags and limits.
	nq := 1 + rng.Intn(3)
	for i := 0; i < nq; i++ {
		name := fmt.Sprintf("q%d", i+1)
		wd.qos = append(wd.qos, name)
		fmt.Fprintf(&sacct, "add qos %s%s\n", name, wd.qosFields(false))
	}
	// Partitions: p (default) and one or two more, some with a
	// partition QOS, a MaxTime or node-count bounds.
	conf.WriteString("PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n")
	wd.partitions = []string{"p"}
	np := 1 + rng.Intn(2)
	for i := 0; i < np; i++ {
		name := fmt.Sprintf("p%d", i+1)
		wd.partitions = append(wd.partitions, name)
		line := fmt.Sprintf("PartitionName=%s Nodes=ALL State=UP", name)
		if rng.Intn(2) == 0 {
			line += fmt.Sprintf(" MaxTime=%d", pick(rng, 10, 20, 30, 60))
		} else {
			line += " MaxTime=UNLIMITED"
		}
		if rng.Intn(3) == 0 {
			line += fmt.Sprintf(" MaxNodes=%d", 1+rng.Intn(3))
		}
		if rng.Intn(5) == 0 {
			line += " MinNodes=2"
		}
		if rng.Intn(3) != 0 {
			pq := "pq" + name[1:]
			fmt.Fprintf(&sacct, "add qos %s%s\n", pq, wd.qosFields(true))
			line += " QOS=" + pq
		}
		conf.WriteString(line + "\n")
	}

	// The association tree: one to three top accounts, each a chain or a
	// small fork two to four account levels deep; the user has
	// associations in some leaves and some inner accounts.
	depth := 2 + rng.Intn(3)
	tops := 1 + rng.Intn(3)
	type acct struct {
		name, parent string
		level        int
	}
	var all []acct
	for t := 0; t < tops; t++ {
		frontier := []acct{{name: fmt.Sprintf("a%d", t+1), parent: "root", level: 1}}
		for len(frontier) > 0 {
			a := frontier[0]
			frontier = frontier[1:]
			all = append(all, a)
			if a.level >= depth {
				continue
			}
			kids := 1
			if rng.Intn(3) == 0 {
				kids = 2
			}
			for k := 0; k < kids; k++ {
				frontier = append(frontier, acct{name: fmt.Sprintf("%s%c", a.name, 'a'+k), parent: a.name, level: a.level + 1})
			}
		}
	}
	isParent := map[string]bool{}
	for _, a := range all {
		isParent[a.parent] = true
	}
	allowed := map[string][]string{"root": {"normal"}}
	for _, a := range all {
		access, list := wd.qosAccess()
		if list == nil {
			list = allowed[a.parent]
		}
		allowed[a.name] = list
		fmt.Fprintf(&sacct, "add account %s Parent=%s Description=%s Organization=sift%s%s\n",
			a.name, a.parent, a.name, wd.assocFields(isParent[a.name]), access)
	}
	for _, a := range all {
		if !isParent[a.name] || rng.Intn(4) == 0 {
			wd.accounts = append(wd.accounts, a.name)
		} else {
			wd.others = append(wd.others, a.name)
		}
	}
	for i, a := range wd.accounts {
		line := fmt.Sprintf("add user @USER@ Account=%s", a)
		if i == 0 {
			line += " DefaultAccount=" + a
		}
		if rng.Intn(2) == 0 {
			line += wd.assocFields(false)
		}
		wd.allowed = append(wd.allowed, allowed[a])
		if rng.Intn(4) == 0 {
			access, list := wd.qosAccess()
			line += access
			if list != nil {
				wd.allowed[i] = list
			}
		}
		sacct.WriteString(line + "\n")
	}

	cf := &caseFile{SlurmConf: conf.String(), Sacctmgr: sacct.String()}
	seen := map[string]bool{}
	for len(cf.Cases) < ncases {
		c := wd.stream()
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		c.Name = fmt.Sprintf("w%d-%02d %s", w, len(cf.Cases)+1, c.Name)
		cf.Cases = append(cf.Cases, c)
	}
	return cf
}

func pick(rng *rand.Rand, vs ...int) int { return vs[rng.Intn(len(vs))] }

// tresLimit draws a TRES list near the jobs' sizes: cpu 2-16, mem
// 2000-32000 MB, node 1-3.
func (wd *world) tresLimit(withMem bool) string {
	rng := wd.rng
	var parts []string
	if rng.Intn(3) != 0 {
		parts = append(parts, fmt.Sprintf("cpu=%d", pick(rng, 2, 4, 6, 8, 12, 16)))
	}
	if withMem && rng.Intn(3) == 0 {
		// A job without --mem holds a whole node's 16000 MB.
		parts = append(parts, fmt.Sprintf("mem=%d", pick(rng, 2000, 4000, 8000, 16000, 32000)))
	}
	if rng.Intn(3) == 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("node=%d", 1+rng.Intn(3)))
	}
	return strings.Join(parts, ",")
}

// qosFields draws two to five QOS limits and, at times, flags.
func (wd *world) qosFields(partition bool) string {
	rng := wd.rng
	kinds := []func() string{
		func() string { return " GrpTRES=" + wd.tresLimit(true) },
		func() string { return fmt.Sprintf(" GrpJobs=%d", 1+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" GrpSubmitJobs=%d", 2+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" GrpTRESRunMins=cpu=%d", pick(rng, 60, 120, 300, 600)) },
		func() string { return fmt.Sprintf(" MaxJobsPerUser=%d", 1+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" MaxSubmitJobsPerUser=%d", 2+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" MaxJobsPerAccount=%d", 1+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" MaxSubmitJobsPerAccount=%d", 2+rng.Intn(3)) },
		func() string { return " MaxTRESPerJob=" + wd.tresLimit(true) },
		func() string { return " MaxTRESPerUser=" + wd.tresLimit(true) },
		func() string { return " MaxTRESPerAccount=" + wd.tresLimit(false) },
		func() string { return fmt.Sprintf(" MaxTRESPerNode=cpu=%d", pick(rng, 2, 4, 6)) },
		func() string { return fmt.Sprintf(" MaxTRESMinsPerJob=cpu=%d", pick(rng, 60, 120, 300)) },
		func() string { return fmt.Sprintf(" MaxWall=%d", pick(rng, 10, 30, 60)) },
		func() string { return fmt.Sprintf(" MinTRESPerJob=cpu=%d", 2+rng.Intn(2)) },
	}
	var b strings.Builder
	n := 2 + rng.Intn(4)
	used := map[int]bool{}
	for len(used) < n {
		k := rng.Intn(len(kinds))
		if used[k] {
			continue
		}
		used[k] = true
		b.WriteString(kinds[k]())
	}
	flags := []string{"DenyOnLimit", "OverPartQOS", "PartitionTimeLimit", "PartitionMaxNodes", "PartitionMinNodes", "NoDecay"}
	var fl []string
	for _, f := range flags {
		if rng.Intn(6) == 0 {
			fl = append(fl, f)
		}
	}
	if len(fl) > 0 {
		b.WriteString(" Flags=" + strings.Join(fl, ","))
	}
	return b.String()
}

// assocFields draws zero to three association limits; Grp limits only
// where they can aggregate (parent accounts get more of them).
func (wd *world) assocFields(parent bool) string {
	rng := wd.rng
	kinds := []func() string{
		func() string { return " GrpTRES=" + wd.tresLimit(true) },
		func() string { return fmt.Sprintf(" GrpJobs=%d", 1+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" GrpSubmitJobs=%d", 2+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" GrpTRESRunMins=cpu=%d", pick(rng, 60, 120, 300, 600)) },
		func() string { return fmt.Sprintf(" MaxJobs=%d", 1+rng.Intn(3)) },
		func() string { return fmt.Sprintf(" MaxSubmitJobs=%d", 2+rng.Intn(3)) },
		func() string { return " MaxTRES=" + wd.tresLimit(true) },
		func() string { return fmt.Sprintf(" MaxTRESPerNode=cpu=%d", pick(rng, 2, 4, 6)) },
		func() string { return fmt.Sprintf(" MaxTRESMins=cpu=%d", pick(rng, 60, 120, 300)) },
		func() string { return fmt.Sprintf(" MaxWall=%d", pick(rng, 10, 30, 60)) },
	}
	n := rng.Intn(3)
	if parent {
		n = 1 + rng.Intn(2)
	}
	var b strings.Builder
	used := map[int]bool{}
	for len(used) < n {
		k := rng.Intn(len(kinds))
		if used[k] {
			continue
		}
		used[k] = true
		b.WriteString(kinds[k]())
	}
	return b.String()
}

// qosAccess gives an association a QOS list and default at times
// (inherited otherwise; root has normal): the sacctmgr fields and the
// list, nil when inherited.
func (wd *world) qosAccess() (string, []string) {
	rng := wd.rng
	if rng.Intn(2) == 0 {
		return "", nil
	}
	list := []string{}
	if rng.Intn(4) != 0 {
		list = append(list, "normal")
	}
	for _, q := range wd.qos {
		if rng.Intn(3) != 0 {
			list = append(list, q)
		}
	}
	if len(list) == 0 {
		list = append(list, wd.qos[0])
	}
	return fmt.Sprintf(" QOS=%s DefaultQOS=%s", strings.Join(list, ","), list[rng.Intn(len(list))]), list
}

// stream draws one job stream: three to six submissions, a cancel or two
// of earlier jobs (a job ending frees what it held), a final time step.
func (wd *world) stream() caseStep {
	rng := wd.rng
	c := caseStep{Mode: "run-now"}
	var names []string
	subs := 3 + rng.Intn(4)
	// Most streams keep to one account and QOS, so counts and sums add
	// up against the same limits.
	account, qos := wd.accountQOS()
	part := wd.partition()
	submitted := 0
	for i := 0; i < subs; i++ {
		if submitted > 1 && rng.Intn(4) == 0 {
			c.Jobs = append(c.Jobs, step{Action: fmt.Sprintf("cancel:%d", 1+rng.Intn(submitted))})
			names = append(names, c.Jobs[len(c.Jobs)-1].Action)
		}
		a, q, p := account, qos, part
		if rng.Intn(4) == 0 {
			a, q = wd.accountQOS()
			p = wd.partition()
		}
		spec := wd.size()
		if a != "" {
			spec += ",account=" + a
		}
		if q != "" {
			spec += ",qos=" + q
		}
		if p != "" {
			spec += ",partition=" + p
		}
		c.Jobs = append(c.Jobs, step{Spec: spec})
		names = append(names, spec)
		submitted++
	}
	c.Jobs = append(c.Jobs, step{Action: "sleep:2"})
	c.Name = strings.Join(names, " ; ")
	return c
}

// accountQOS draws a job's account and QOS: the account is empty (the
// default account) or one of the user's, rarely one the user has no
// association in (refused at submit); the QOS is empty (the
// association's default) or one the association may use, rarely any.
func (wd *world) accountQOS() (string, string) {
	rng := wd.rng
	i := rng.Intn(len(wd.accounts))
	acct := wd.accounts[i]
	switch {
	case len(wd.others) > 0 && rng.Intn(20) == 0:
		acct = wd.others[rng.Intn(len(wd.others))]
	case rng.Intn(4) == 0:
		i, acct = 0, ""
	}
	switch r := rng.Intn(10); {
	case r < 3:
		return acct, ""
	case r == 3:
		all := append([]string{"normal"}, wd.qos...)
		return acct, all[rng.Intn(len(all))]
	}
	list := wd.allowed[i]
	return acct, list[rng.Intn(len(list))]
}

func (wd *world) partition() string {
	rng := wd.rng
	if rng.Intn(3) == 0 {
		return ""
	}
	return wd.partitions[rng.Intn(len(wd.partitions))]
}

// size draws a job of one to twelve CPUs on one to three nodes, at times
// with memory, a time limit or whole nodes.
func (wd *world) size() string {
	rng := wd.rng
	var p []string
	switch rng.Intn(4) {
	case 0:
		p = append(p, fmt.Sprintf("nodes=%d", 1+rng.Intn(3)))
		if rng.Intn(2) == 0 {
			p = append(p, "exclusive")
		} else {
			p = append(p, fmt.Sprintf("ntasks=%d", 3+rng.Intn(6)))
		}
	default:
		p = append(p, fmt.Sprintf("ntasks=%d", pick(wd.rng, 1, 1, 2, 2, 3, 4, 4, 6, 8, 12)))
	}
	if rng.Intn(3) != 0 {
		p = append(p, fmt.Sprintf("mem=%d", pick(rng, 500, 1000, 1500, 3000)))
	}
	if rng.Intn(2) == 0 {
		p = append(p, fmt.Sprintf("time=%d", pick(rng, 5, 10, 15, 30, 45, 90)))
	}
	return strings.Join(p, ",")
}
