package limits

import (
	"errors"
	"strings"
	"testing"
)

// These tests port Slurm's own limit tests (testsuite/expect at 284c3b95).
// Each case keeps the test's numbers for a cluster of four 8-CPU nodes
// with one thread per core (totcpus 8, nthreads 1, so GrpCpus and MaxCpus
// are 7, GrpCPUMins and MaxCPUMins 8, node limits 3), and the outcome the
// test itself states. No recording of these runs exists yet: the cases
// check sift against the tests' stated expectations, not against a run.

// slurmTest is test21.30's setup: account acct whose only QOS is qostest
// (so every job runs under it), user u, partition p with no limits.
type slurmTest struct {
	t    *testing.T
	p    *Policy
	q    *QOS
	next uint32
	node uint32
	// now is the time of the next start; err the last submit's refusal.
	now int64
	err error
}

func newSlurmTest(t *testing.T, enforce string) *slurmTest {
	tl, _ := NewTRESList()
	p := NewPolicy(tl, "c")
	var err error
	if p.Enforce, err = ParseEnforce(enforce); err != nil {
		t.Fatal(err)
	}
	p.ensureNormal()
	q := NewQOS("qostest", tl.Len())
	p.AddQOS(q)
	a, err := p.AddAccount("acct", "root")
	if err != nil {
		t.Fatal(err)
	}
	a.QOS = []string{"qostest"}
	if _, err := p.AddUser("u", "acct", ""); err != nil {
		t.Fatal(err)
	}
	p.AddPartition(NewPartition("p"))
	p.Finish()
	return &slurmTest{t: t, p: p, q: q, now: 1_000_000}
}

// modQOS is the test's mod_qos: sacctmgr's names and values.
func (s *slurmTest) modQOS(q *QOS, fields ...string) {
	s.t.Helper()
	for _, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		if err := s.p.setQOSField(q, k, v); err != nil {
			s.t.Fatalf("mod_qos %s: %v", f, err)
		}
	}
}

// billing sets the partition's TRESBillingWeights (scontrol update
// partitionname=p tresbillingweights=cpu=2).
func (s *slurmTest) billing(w string) {
	bw, err := s.p.TRES.ParseBillingWeights(w)
	if err != nil {
		s.t.Fatal(err)
	}
	s.p.Partition("p").Billing = bw
}

// sbatch submits a job: n CPUs on nodes nodes (exclusive: 8 CPUs each),
// mem MB, limit minutes (NoVal for none), as an array of tasks jobs (0:
// not an array). It returns the job; s.err is the refusal.
func (s *slurmTest) sbatch(cpus, nodes, mem uint64, limit uint32, tasks uint32) *Job {
	s.t.Helper()
	s.next++
	j := &Job{ID: s.next, User: "u", Account: "acct", Partition: "p", TimeLimit: limit, ArrayTasks: tasks,
		MinNodes: uint32(nodes)}
	j.Req = make(Vector, s.p.TRES.Len())
	j.Req[TRESCPU], j.Req[TRESNode], j.Req[TRESMem] = cpus, nodes, mem
	var bw *BillingWeights
	if part := s.p.Partition("p"); part != nil {
		bw = part.Billing
	}
	j.Req[TRESBilling] = uint64(bw.Billing(s.p.TRES, j.Req, BillSum))
	if s.err = s.p.Bind(j); s.err != nil {
		return nil
	}
	if s.err = s.p.Validate(j); s.err != nil {
		return nil
	}
	s.p.Submit(j)
	return j
}

// run starts a job at now on fresh nodes; it returns the reason it pends.
func (s *slurmTest) run(j *Job, now int64) Reason {
	if ok, r := s.p.PreSelect(j, now); !ok {
		return r
	}
	var nodes []uint32
	for i := uint64(0); i < j.Req[TRESNode]; i++ {
		nodes = append(nodes, s.node%4)
		s.node++
	}
	if ok, r := s.p.PostSelect(j, j.Req, nodes, now); !ok {
		return r
	}
	s.p.Begin(j, j.Req, nodes, now)
	return ReasonNone
}

func (s *slurmTest) mustRun(j *Job) *Job {
	s.t.Helper()
	if s.err != nil {
		s.t.Fatalf("job should be submitted: %v", s.err)
	}
	if r := s.run(j, s.now); r != ReasonNone {
		s.t.Fatalf("job %d should run, pends with %s", j.ID, r)
	}
	return j
}

func (s *slurmTest) mustPend(j *Job, want string) {
	s.t.Helper()
	if s.err != nil {
		s.t.Fatalf("job should be submitted: %v", s.err)
	}
	if r := s.run(j, s.now); r.String() != want {
		s.t.Errorf("job %d should pend with %s, got %s", j.ID, want, r)
	}
}

func (s *slurmTest) mustRefuse(j *Job) {
	s.t.Helper()
	var pe *PolicyError
	if j != nil || !errors.As(s.err, &pe) || !strings.Contains(s.err.Error(), "Job violates accounting/QOS policy") {
		s.t.Errorf("job should NOT be submitted with \"Job violates accounting/QOS policy\", got %v", s.err)
	}
}

// qosScenario is one inc21.30.* check: the QOS limit it sets (sacctmgr's
// name and test21.30's value), whether the billing weight cpu=2 is set,
// and the jobs and outcome the test states.
type qosScenario struct {
	origin string
	field  string
	value  string
	weight string
	check  func(s *slurmTest)
}

var qosScenarios = []qosScenario{
	{"inc21.30.1 QOS GrpNodes", "GrpNodes", "3", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(24, 3, 0, 1, 0))
		s.mustPend(s.sbatch(8, 1, 0, 1, 0), "QOSGrpNodeLimit")
	}},
	{"inc21.30.2 QOS GrpCpus", "GrpCpus", "7", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(7, 1, 0, 1, 0))
		s.mustPend(s.sbatch(8, 1, 0, 1, 0), "QOSGrpCpuLimit")
	}},
	{"inc21.30.3 QOS GrpJobs", "GrpJobs", "2", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(1, 1, 0, 1, 0))
		s.mustRun(s.sbatch(1, 1, 0, 1, 0))
		s.mustPend(s.sbatch(1, 1, 0, 1, 0), "QOSGrpJobsLimit")
	}},
	{"inc21.30.4 QOS GrpSubmit", "GrpSubmit", "2", "", submitLimit},
	{"inc21.30.5 QOS MaxCpus", "MaxCpus", "7", "", func(s *slurmTest) {
		s.p.End(s.mustRun(s.sbatch(7, 1, 0, 1, 0)), s.now+1)
		s.mustPend(s.sbatch(8, 1, 0, 1, 0), "QOSMaxCpuPerJobLimit")
	}},
	{"inc21.30.6 QOS MaxNodes", "MaxNodes", "3", "", func(s *slurmTest) {
		// The test accepts QOSMaxNodePerJobLimit or PartitionConfig.
		s.p.End(s.mustRun(s.sbatch(24, 3, 0, 1, 0)), s.now+1)
		s.mustPend(s.sbatch(32, 4, 0, 1, 0), "QOSMaxNodePerJobLimit")
	}},
	{"inc21.30.7 QOS MaxJobs", "MaxJobs", "2", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(1, 1, 0, 1, 0))
		s.mustRun(s.sbatch(1, 1, 0, 1, 0))
		s.mustPend(s.sbatch(1, 1, 0, 1, 0), "QOSMaxJobsPerUserLimit")
	}},
	{"inc21.30.8 QOS MaxSubmitJobs", "MaxSubmitJobs", "2", "", submitLimit},
	{"inc21.30.9 QOS GrpCPUMins (safe)", "GrpCpuMin", "8", "", func(s *slurmTest) {
		s.p.End(s.mustRun(s.sbatch(1, 1, 0, 8, 0)), s.now+1)
		s.resetUsage()
		s.mustPend(s.sbatch(1, 1, 0, 9, 0), "QOSGrpCPUMinutesLimit")
	}},
	{"inc21.30.10 QOS GrpCPURunMins", "GrpCpuRunMin", "40", "", func(s *slurmTest) {
		s.p.End(s.mustRun(s.sbatch(4, 1, 0, 7, 0)), s.now+1)
		s.mustPend(s.sbatch(4, 1, 0, 11, 0), "QOSGrpCPURunMinutesLimit")
	}},
	{"inc21.30.11 QOS GrpMem (CR_*_MEMORY)", "GrpMem", "100", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(1, 1, 100, 1, 0))
		s.mustPend(s.sbatch(1, 1, 100, 1, 0), "QOSGrpMemLimit")
	}},
	{"inc21.30.12 QOS GrpWall", "GrpWall", "1", "", func(s *slurmTest) {
		// 20 jobs of -t1 sleeping 3 s use the minute up.
		for i := 0; i < 20; i++ {
			s.p.End(s.mustRun(s.sbatch(1, 1, 0, 1, 0)), s.now+3)
		}
		s.mustPend(s.sbatch(1, 1, 0, 1, 0), "QOSGrpWallLimit")
	}},
	{"inc21.30.13 QOS MaxCPUMins", "MaxCpuMin", "8", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(8, 1, 0, 1, 0))
		s.mustPend(s.sbatch(9, 2, 0, 1, 0), "QOSMaxCpuMinutesPerJobLimit")
	}},
	{"inc21.30.14 QOS MaxWall", "MaxWall", "2", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(1, 1, 0, 2, 0))
		s.mustPend(s.sbatch(1, 1, 0, 3, 0), "QOSMaxWallDurationPerJobLimit")
	}},
	{"inc21.30.15 QOS MaxCpusPerUser", "MaxCpusPerUser", "2", "", func(s *slurmTest) {
		s.mustRun(s.sbatch(2, 1, 0, 1, 0))
		s.mustPend(s.sbatch(2, 1, 0, 1, 0), "QOSMaxCpuPerUserLimit")
	}},
	{"inc21.30.16 QOS MaxNodesPerUser", "MaxNodesPerUser", "3", "", func(s *slurmTest) {
		// The test accepts QOSMaxNodePerUserLimit or PartitionConfig.
		s.mustRun(s.sbatch(24, 3, 0, 1, 0))
		s.mustPend(s.sbatch(32, 4, 0, 1, 0), "QOSMaxNodePerUserLimit")
	}},
	{"inc21.30.17 QOS MaxWall gives a job without -t its time limit", "MaxWall", "2", "", func(s *slurmTest) {
		j := s.mustRun(s.sbatch(1, 1, 0, NoVal, 0))
		if j.TimeLimit != 2 {
			s.t.Errorf("TimeLimit %d minutes, want 00:02:00", j.TimeLimit)
		}
	}},
	{"inc21.30.2 QOS GrpTRES=billing (TRESBillingWeights cpu=2)", "GrpTRES", "billing=14", "CPU=2", func(s *slurmTest) {
		s.mustRun(s.sbatch(7, 1, 0, 1, 0))
		s.mustPend(s.sbatch(8, 1, 0, 1, 0), "QOSGrpBilling")
	}},
	{"inc21.30.9 QOS GrpTRESMins=billing (safe)", "GrpTRESMins", "billing=16", "CPU=2", func(s *slurmTest) {
		s.p.End(s.mustRun(s.sbatch(1, 1, 0, 8, 0)), s.now+1)
		s.resetUsage()
		s.mustPend(s.sbatch(1, 1, 0, 9, 0), "QOSGrpBillingMinutes")
	}},
	{"inc21.30.10 QOS GrpTRESRunMins=billing", "GrpTRESRunMins", "billing=80", "CPU=2", func(s *slurmTest) {
		s.p.End(s.mustRun(s.sbatch(4, 1, 0, 7, 0)), s.now+1)
		s.mustPend(s.sbatch(4, 1, 0, 11, 0), "QOSGrpBillingRunMinutes")
	}},
	{"inc21.30.5 QOS MaxTRESPerJob=billing", "MaxTRESPerJob", "billing=14", "CPU=2", func(s *slurmTest) {
		s.p.End(s.mustRun(s.sbatch(7, 1, 0, 1, 0)), s.now+1)
		s.mustPend(s.sbatch(8, 1, 0, 1, 0), "QOSMaxBillingPerJob")
	}},
	{"inc21.30.13 QOS MaxTRESMinsPerJob=billing", "MaxTRESMinsPerJob", "billing=16", "CPU=2", func(s *slurmTest) {
		s.mustRun(s.sbatch(8, 1, 0, 1, 0))
		s.mustPend(s.sbatch(9, 2, 0, 1, 0), "QOSMaxBillingMinutesPerJob")
	}},
	{"inc21.30.15 QOS MaxTRESPerUser=billing", "MaxTRESPerUser", "billing=4", "CPU=2", func(s *slurmTest) {
		s.mustRun(s.sbatch(2, 1, 0, 1, 0))
		s.mustPend(s.sbatch(2, 1, 0, 1, 0), "QOSMaxBillingPerUser")
	}},
}

// tight is the value test21.34 gives the QOS that must not win: 1 (of
// the TRES, for a TRES limit).
func (c qosScenario) tight() string {
	if k, _, ok := strings.Cut(c.value, "="); ok {
		return k + "=1"
	}
	return "1"
}

// TestSlurm21_30 is test21.30 with inc21.30.1-17: QOS limits enforced
// (AccountingStorageEnforce with limits; safe for GrpCPUMins), the job's
// only QOS holding the limit.
func TestSlurm21_30(t *testing.T) {
	for _, c := range qosScenarios {
		t.Run(c.origin, func(t *testing.T) {
			s := newSlurmTest(t, "associations,limits,qos,safe")
			s.modQOS(s.q, c.field+"="+c.value)
			if c.weight != "" {
				s.billing(c.weight)
			}
			c.check(s)
		})
	}
}

// TestSlurm21_34 is test21.34: a partition QOS and a job QOS. First
// (part_test) the partition QOS holds each limit and the job QOS a
// tighter 1, and the partition QOS wins; then (qos_test) the job QOS has
// OverPartQOS and the limit, the partition QOS the tighter 1, and the job
// QOS wins. The partition bills cpu=2 throughout; for GrpCpus and
// GrpTRES=billing the test gives both QOS the limit in qos_test. Its
// inc21.34.1 and inc21.34.2 are inc21.30.9 and .12 with the usage of the
// winning QOS reset.
func TestSlurm21_34(t *testing.T) {
	for _, over := range []bool{false, true} {
		for _, c := range qosScenarios {
			name := "part_test " + c.origin
			if over {
				name = "qos_test " + c.origin
			}
			t.Run(name, func(t *testing.T) {
				s := newSlurmTest(t, "associations,limits,qos,safe")
				pq := NewQOS("part_qos", s.p.TRES.Len())
				s.p.AddQOS(pq)
				s.p.Partition("p").QOS = "part_qos"
				s.billing("CPU=2")
				win, lose := pq, s.q
				if over {
					s.q.Flags |= OverPartQOS
					win, lose = s.q, pq
				}
				s.modQOS(win, c.field+"="+c.value)
				if over && (c.field == "GrpCpus" || c.field == "GrpTRES") {
					s.modQOS(lose, c.field+"="+c.value)
				} else {
					s.modQOS(lose, c.field+"="+c.tight())
				}
				s.q = win // the QOS whose usage the test resets
				c.check(s)
			})
		}
	}
}

// submitLimit is inc21.30.4 and inc21.30.8: two jobs run, a third is
// refused; after they are cancelled a two-task array runs and one more
// job is refused; a three-task array is refused.
func submitLimit(s *slurmTest) {
	a := s.mustRun(s.sbatch(1, 1, 0, 1, 0))
	b := s.mustRun(s.sbatch(1, 1, 0, 1, 0))
	s.mustRefuse(s.sbatch(1, 1, 0, 1, 0))
	s.p.End(a, s.now+1)
	s.p.End(b, s.now+1)
	arr := s.mustRun(s.sbatch(1, 1, 0, 1, 2))
	s.mustRefuse(s.sbatch(1, 1, 0, 1, 0))
	s.p.End(arr, s.now+2)
	s.mustRefuse(s.sbatch(1, 1, 0, 1, 3))
}

func (s *slurmTest) resetUsage() {
	for i := range s.q.usage.usageRaw {
		s.q.usage.usageRaw[i] = 0
	}
	s.q.usage.usedWall = 0
}

// TestSlurm21_35 is test21.35: with DenyOnLimit on the QOS, a job over a
// QOS or account MaxTRES (per job), MaxTRESPerUser (QOS only) or
// MaxTRESMins (per job) limit of cpu=2, node=1 or billing=4 (cpu bills 2)
// is refused at submit with "Job violates accounting/QOS policy", as is a
// job over the QOS's MaxWall=2.
func TestSlurm21_35(t *testing.T) {
	limits := map[string]string{"cpu": "2", "node": "1", "billing": "4"}
	for _, limit := range []string{"MaxTRESPerJob", "MaxTRESPerUser", "MaxTRESMinsPerJob"} {
		for _, entity := range []string{"qos", "account"} {
			if entity == "account" && limit == "MaxTRESPerUser" {
				continue
			}
			for _, tres := range []string{"billing", "cpu", "node"} {
				t.Run(entity+" "+limit+"="+tres, func(t *testing.T) {
					s := newSlurmTest(t, "associations,limits,qos")
					s.q.Flags |= DenyOnLimit
					s.billing("CPU=2")
					field := limit + "=" + tres + "=" + limits[tres]
					if entity == "qos" {
						s.modQOS(s.q, field)
					} else {
						k, v, _ := strings.Cut(field, "=")
						if k == "MaxTRESMinsPerJob" {
							k = "MaxTRESMins"
						}
						if err := s.p.setAssocField(s.p.Account("acct"), k, v); err != nil {
							t.Fatal(err)
						}
						s.p.Finish()
					}
					// sbatch -n3 (or -N2 for node) -t1.
					if tres == "node" {
						s.mustRefuse(s.sbatch(2, 2, 0, 1, 0))
					} else {
						s.mustRefuse(s.sbatch(3, 1, 0, 1, 0))
					}
				})
			}
		}
	}
	t.Run("qos MaxWall", func(t *testing.T) {
		s := newSlurmTest(t, "associations,limits,qos")
		s.q.Flags |= DenyOnLimit
		s.modQOS(s.q, "MaxWall=2")
		s.mustRefuse(s.sbatch(1, 1, 0, 3, 0))
	})
}

// TestSlurm21_40 is test21.40: GrpNodes=1 on the account, then on the job
// QOS, then on the partition QOS. With one job running on a node, a job
// excluding that node waits with AssocGrpNodeLimit or QOSGrpNodeLimit (the
// test accepts either), a job on that same node does not (nodes are
// counted once); a two-node job alone waits on the node limit too.
func TestSlurm21_40(t *testing.T) {
	for _, level := range []string{"account", "job QOS", "partition QOS"} {
		t.Run(level, func(t *testing.T) {
			s := newSlurmTest(t, "associations,limits,qos")
			pq := NewQOS("part_qos", s.p.TRES.Len())
			s.p.AddQOS(pq)
			s.p.Partition("p").QOS = "part_qos"
			switch level {
			case "account":
				if err := s.p.setAssocField(s.p.Account("acct"), "GrpNodes", "1"); err != nil {
					t.Fatal(err)
				}
			case "job QOS":
				s.modQOS(s.q, "GrpNodes=1")
			default:
				s.modQOS(pq, "GrpNodes=1")
			}
			s.p.Finish()
			grpNode := func(r Reason) bool { return r == ReasonAssocGrpNode || r == ReasonQOSGrpNode }
			start := func(j *Job, node uint32) Reason {
				if ok, r := s.p.PreSelect(j, s.now); !ok {
					return r
				}
				if ok, r := s.p.PostSelect(j, j.Req, []uint32{node}, s.now); !ok {
					return r
				}
				s.p.Begin(j, j.Req, []uint32{node}, s.now)
				return ReasonNone
			}
			j1 := s.sbatch(1, 1, 10, 1, 0)
			if r := start(j1, 0); r != ReasonNone {
				t.Fatalf("job 1 should run: %s", r)
			}
			j2 := s.sbatch(1, 1, 10, 1, 0)
			if r := start(j2, 1); !grpNode(r) {
				t.Errorf("job 2 (--exclude its node) should wait on GrpNodeLimit, got %s", r)
			}
			j3 := s.sbatch(1, 1, 10, 1, 0)
			if r := start(j3, 0); grpNode(r) {
				t.Errorf("job 3 (--nodelist its node) should not wait on GrpNodeLimit, got %s", r)
			}
			for _, j := range []*Job{j1, j2, j3} {
				s.p.End(j, s.now+1)
			}
			j4 := s.sbatch(2, 2, 10, 1, 0)
			if r := s.run(j4, s.now); !grpNode(r) {
				t.Errorf("job 4 (-N2) should wait on GrpNodeLimit, got %s", r)
			}
		})
	}
}

// TestSlurm1_74 is test1.74: srun -N1-N (N = 4 nodes) under accounts
// acct → acct_c_1 (MaxNodes N-1) → acct_c_2 (MaxNodes N-2), with QOS qos on
// acct. The job gets as many nodes as acct_policy_get_max_nodes allows;
// the counts are the test's.
func TestSlurm1_74(t *testing.T) {
	const n = 4
	build := func(t *testing.T) *Policy {
		tl, _ := NewTRESList()
		p := NewPolicy(tl, "c")
		p.Enforce, _ = ParseEnforce("associations,limits,qos")
		p.ensureNormal()
		p.AddQOS(NewQOS("qos", tl.Len()))
		for _, a := range [][2]string{{"acct", "root"}, {"acct_c_1", "acct"}, {"acct_c_2", "acct_c_1"}} {
			if _, err := p.AddAccount(a[0], a[1]); err != nil {
				t.Fatal(err)
			}
			if _, err := p.AddUser("u", a[0], ""); err != nil {
				t.Fatal(err)
			}
		}
		p.Account("acct").QOS = []string{"qos"}
		p.Account("acct_c_1").Limits.MaxTRESPerJob[TRESNode] = n - 1
		p.Account("acct_c_2").Limits.MaxTRESPerJob[TRESNode] = n - 2
		p.AddPartition(NewPartition("p"))
		p.Finish()
		return p
	}
	srun := func(t *testing.T, p *Policy, account string) uint32 {
		t.Helper()
		j := &Job{User: "u", Account: account, Partition: "p", TimeLimit: 1, MinNodes: 1, MaxNodes: n}
		if err := p.Bind(j); err != nil {
			t.Fatal(err)
		}
		max, _ := p.MaxNodes(j)
		return min(max, n)
	}
	set := func(t *testing.T, p *Policy, account, field, value string) {
		t.Helper()
		var err error
		if account == "" {
			err = p.setQOSField(p.QOS("qos"), field, value)
		} else {
			err = p.setAssocField(p.Account(account), field, value)
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Finish()
	}
	p := build(t)
	steps := []struct {
		what, account, field, value string
		srunAcct                    string
		want                        uint32
	}{
		{"no limits", "", "", "", "acct", n},
		{"QOS MaxNodes=N-1", "", "MaxNodes", "3", "acct", n - 1},
		{"and account MaxNodes=1 (QOS wins)", "acct", "MaxNodes", "1", "acct", n - 1},
		{"QOS GrpNodes=N-1", "", "GrpNodes", "3", "acct", n - 1},
		{"and account GrpNodes=1 (QOS wins)", "acct", "GrpNodes", "1", "acct", n - 1},
		{"account MaxNodes=1 under QOS GrpNodes=N-1", "acct", "MaxNodes", "1", "acct", 1},
		{"limits removed: acct", "", "GrpNodes", "-1", "acct", n},
		{"limits removed: acct_c_1 keeps MaxNodes=N-1", "", "", "", "acct_c_1", n - 1},
		{"limits removed: acct_c_2 keeps MaxNodes=N-2", "", "", "", "acct_c_2", n - 2},
		{"GrpNodes=N-1 on acct_c_1: acct", "acct_c_1", "GrpNodes", "3", "acct", n},
		{"GrpNodes=N-1 on acct_c_1", "", "", "", "acct_c_1", n - 1},
		{"GrpNodes=N-2 on acct_c_2", "acct_c_2", "GrpNodes", "2", "acct_c_2", n - 2},
	}
	for _, st := range steps {
		switch {
		case st.what == "QOS GrpNodes=N-1":
			set(t, p, "", "MaxNodes", "-1")
			set(t, p, "acct", "MaxNodes", "-1")
		case st.what == "account MaxNodes=1 under QOS GrpNodes=N-1":
			set(t, p, "acct", "GrpNodes", "-1")
		case st.what == "limits removed: acct":
			set(t, p, "acct", "MaxNodes", "-1")
		case st.what == "GrpNodes=N-1 on acct_c_1: acct":
			set(t, p, "acct_c_1", "MaxNodes", "-1")
			set(t, p, "acct_c_2", "MaxNodes", "-1")
		}
		if st.field != "" {
			set(t, p, st.account, st.field, st.value)
		}
		if got := srun(t, p, st.srunAcct); got != st.want {
			t.Errorf("%s: srun -A %s -N1-%d gets %d nodes, test1.74 expects %d", st.what, st.srunAcct, n, got, st.want)
		}
	}
}
