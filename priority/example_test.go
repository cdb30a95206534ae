package priority_test

import (
	"fmt"
	"os"

	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/priority"
)

// How to compute sprio and sshare rows at a time T from a sacctmgr dump,
// jobs and usage: read the dump, set the slurm.conf keys, build the
// multifactor engine for the cluster, set each association's raw usage
// (RawUsage as sshare prints it, or charge jobs through m.Usage), compute
// fair-share, then bind each job and take its factors at T.
func Example() {
	dump := []byte(`QOS - 'normal'
QOS - 'high':Priority=100
Cluster - 'c':Fairshare=1:QOS='normal,high'
Parent - 'root'
Account - 'a':Fairshare=30
Account - 'b':Fairshare=10
Parent - 'a'
User - 'u1':DefaultAccount='a':Fairshare=1
Parent - 'b'
User - 'u2':DefaultAccount='b':Fairshare=1
`)
	tl, _ := limits.NewTRESList()
	pol, _, err := limits.ReadDump("c.dump", dump, tl)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := priority.DefaultConfig()
	for k, v := range map[string]string{"PriorityWeightAge": "1000", "PriorityWeightFairshare": "10000",
		"PriorityWeightQOS": "2000", "PriorityWeightJobSize": "500", "PriorityMaxAge": "1-0"} {
		if _, err := cfg.Set(k, v); err != nil {
			fmt.Println(err)
			return
		}
	}
	m, err := priority.New(cfg, pol, priority.Cluster{CPUs: 64, Nodes: 4,
		Partitions: []priority.Partition{{Name: "batch", JobFactor: 1}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Usage at T: RawUsage per association (root holds the sum).
	set := func(a *limits.Assoc, raw float64) { m.Shares.Node(a).UsageRaw = raw }
	set(pol.Root, 4000)
	set(pol.Account("a"), 3500)
	set(pol.User("u1", "a", ""), 3500)
	set(pol.Account("b"), 500)
	set(pol.User("u2", "b", ""), 500)
	m.Shares.Compute()

	const T = 1_700_000_000
	jobs := []*priority.Job{
		{ID: 1, User: "u1", Account: "a", Partitions: []string{"batch"}, Submit: T - 3600, Eligible: T - 3600, MinNodes: 1, CPUs: 16, TimeLimit: 60},
		{ID: 2, User: "u2", Account: "b", QOS: "high", Partitions: []string{"batch"}, Submit: T - 7200, Eligible: T - 7200, MinNodes: 2, CPUs: 32, TimeLimit: 60},
	}
	for _, j := range jobs {
		if err := m.Bind(j); err != nil {
			fmt.Println(err)
			return
		}
	}
	m.Accrue.Update(jobs, T) // no accrue limits: age counts from eligibility
	var rows []priority.Factors
	for _, j := range jobs {
		rows = append(rows, m.Factors(j, T)...)
	}
	priority.WriteSprio(os.Stdout, rows, priority.SprioOptions{Config: cfg})
	fmt.Println()
	priority.WriteSshare(os.Stdout, m.ShareRows(), priority.SshareOptions{Long: true, Parsable: true, Flags: cfg.Flags, TRES: pol.TRES})
	// Output:
	// JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE        QOS
	//               1 batch           5166          0         42       5000        125          0
	//               2 batch          12333          0         83      10000        250       2000
	//
	// Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins
	// root|||0.000000|4000||1.000000||||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0
	//  a||30|0.750000|3500|0.875000|0.875000||0.857143||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0
	//   a|u1|1|1.000000|3500|0.875000|1.000000|0.500000|1.000000||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0
	//  b||10|0.250000|500|0.125000|0.125000||2.000000||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0
	//   b|u2|1|1.000000|500|0.125000|1.000000|1.000000|1.000000||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0
}
