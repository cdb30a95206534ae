package limits

import "testing"

// TestEachLimit: one case per limit of resource_limits ("Association
// specific limits", "QOS specific limits"): the job that breaks it is
// refused at submit or held at start with Slurm's reason. Running jobs
// given in run start first. Expected reasons follow acct_policy.c; no
// recording of a live Slurm covers these cases yet (the lab's smoke
// recording covers MaxTRESPerUser, TestSmokeAccountingReplay).
func TestEachLimit(t *testing.T) {
	type step struct {
		user, account, part, qos, req string
		minutes                       uint32
	}
	for _, c := range []struct {
		name, section string
		setup         func(f *fixture)
		run           []step
		job           step
		submit, start Reason
	}{
		{"assoc GrpJobs", "Association GrpJobs", func(f *fixture) { f.p.Account("phys").Limits.GrpJobs = 1 },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonAssocGrpJob},
		{"assoc GrpSubmitJobs", "Association GrpSubmitJobs", func(f *fixture) { f.p.Account("phys").Limits.GrpSubmitJobs = 1 },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonAssocGrpSubJob, ReasonNone},
		{"assoc GrpTRES cpu at the account", "Association GrpTRES", func(f *fixture) { f.p.Account("phys").Limits.GrpTRES = f.tres("cpu=4") },
			[]step{{"bob", "phys", "plain", "", "cpu=3,node=1", 10}}, step{"alice", "theory", "plain", "", "cpu=2,node=1", 10}, ReasonNone, ReasonAssocGrpCPU},
		{"assoc GrpTRES mem", "Association GrpTRES", func(f *fixture) { f.p.Root.Limits.GrpTRES = f.tres("mem=1000") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,mem=800,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,mem=300,node=1", 10}, ReasonNone, ReasonAssocGrpMem},
		{"assoc GrpTRES gres", "Association GrpTRES", func(f *fixture) { f.p.Account("phys").Limits.GrpTRES = f.tres("gres/gpu=2") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,gres/gpu=2,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,gres/gpu=1,node=1", 10}, ReasonNone, ReasonAssocGrpGRES},
		{"assoc GrpTRES node counts shared nodes once", "Association GrpTRES", func(f *fixture) { f.p.Account("phys").Limits.GrpTRES = f.tres("node=1") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonNone},
		{"assoc GrpTRES request alone, no QOS, refused", "Association GrpTRES; QOS DenyOnLimit", func(f *fixture) {
			f.p.Account("phys").Limits.GrpTRES = f.tres("cpu=4")
		}, nil, step{"alice", "phys", "plain", "none", "cpu=8,node=1", 10}, ReasonAssocGrpCPU, ReasonNone},
		{"assoc GrpTRESRunMins", "Association GrpTRESRunMins", func(f *fixture) { f.p.Account("phys").Limits.GrpTRESRunMins = f.tres("cpu=100") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 60}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonAssocGrpCPURunMin},
		{"assoc GrpWall sets and bounds the time limit", "Association GrpWall", func(f *fixture) { f.p.Account("phys").Limits.GrpWall = 30 },
			nil, step{"alice", "phys", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonNone},
		{"assoc MaxJobs", "Association MaxJobs", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxJobs = 1 },
			[]step{{"alice", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonAssocMaxJobs},
		{"assoc MaxJobs is per association", "Association MaxJobs", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxJobs = 1 },
			[]step{{"alice", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "theory", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonNone},
		{"assoc MaxSubmitJobs", "Association MaxSubmitJobs", func(f *fixture) { f.p.Account("phys").Limits.MaxSubmitJobs = 1 },
			[]step{{"alice", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonAssocMaxSubJob, ReasonNone},
		{"assoc MaxTRESPerJob pends with a QOS", "Association MaxTRESPerJob", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxTRESPerJob = f.tres("cpu=4") },
			nil, step{"alice", "phys", "plain", "", "cpu=8,node=1", 10}, ReasonNone, ReasonAssocMaxCPUPerJob},
		{"assoc MaxTRESPerJob node", "Association MaxTRESPerJob", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxTRESPerJob = f.tres("node=1") },
			nil, step{"alice", "phys", "plain", "", "cpu=2,node=2", 10}, ReasonNone, ReasonAssocMaxNodePerJob},
		{"assoc MaxTRESPerNode", "Association MaxTRESPerNode", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxTRESPerNode = f.tres("cpu=2") },
			nil, step{"alice", "phys", "plain", "", "cpu=8,node=2", 10}, ReasonNone, ReasonAssocMaxCPUPerNode},
		{"assoc MaxTRESMinsPerJob", "Association MaxTRESMinsPerJob", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxTRESMinsPerJob = f.tres("cpu=100") },
			nil, step{"alice", "phys", "plain", "", "cpu=4,node=1", 60}, ReasonNone, ReasonAssocMaxCPUMinsPerJob},
		{"assoc MaxWall", "Association MaxWallDurationPerJob", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxWall = 30 },
			nil, step{"alice", "phys", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonAssocMaxWallPerJob},
		{"assoc MaxWall without a QOS refuses", "Association MaxWallDurationPerJob", func(f *fixture) { f.p.User("alice", "phys", "").Limits.MaxWall = 30 },
			nil, step{"alice", "phys", "plain", "none", "cpu=1,node=1", 60}, ReasonAssocMaxWallPerJob, ReasonNone},
		{"QOS GrpJobs", "QOS GrpJobs", func(f *fixture) { f.p.QOS("normal").GrpJobs = 1 },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonQOSGrpJob},
		{"QOS GrpSubmitJobs", "QOS GrpSubmitJobs", func(f *fixture) { f.p.QOS("normal").GrpSubmitJobs = 1 },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonQOSGrpSubJob, ReasonNone},
		{"QOS GrpTRES", "QOS GrpTRES", func(f *fixture) { f.p.QOS("normal").GrpTRES = f.tres("cpu=4") },
			[]step{{"bob", "phys", "plain", "", "cpu=3,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=2,node=1", 10}, ReasonNone, ReasonQOSGrpCPU},
		{"QOS GrpTRES billing", "QOS GrpTRES", func(f *fixture) { f.p.QOS("normal").GrpTRES = f.tres("billing=4") },
			[]step{{"bob", "phys", "plain", "", "cpu=3,billing=3,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=2,billing=2,node=1", 10}, ReasonNone, ReasonQOSGrpBilling},
		{"QOS GrpTRES license", "QOS GrpTRES", func(f *fixture) { f.p.QOS("normal").GrpTRES = f.tres("license/matlab=1") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,license/matlab=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,license/matlab=1,node=1", 10}, ReasonNone, ReasonQOSGrpLic},
		{"QOS GrpTRESRunMins", "QOS GrpTRESRunMins", func(f *fixture) { f.p.QOS("normal").GrpTRESRunMins = f.tres("cpu=100") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 60}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonQOSGrpCPURunMin},
		{"QOS MaxJobsPerUser", "QOS MaxJobsPerUser", func(f *fixture) { f.p.QOS("normal").MaxJobsPerUser = 1 },
			[]step{{"alice", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "theory", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonQOSMaxJobPerUser},
		{"QOS MaxJobsPerAccount", "QOS MaxJobsPerAccount", func(f *fixture) { f.p.QOS("normal").MaxJobsPerAccount = 1 },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonQOSMaxJobPerAcct},
		{"QOS MaxSubmitJobsPerUser", "QOS MaxSubmitJobsPerUser", func(f *fixture) { f.p.QOS("normal").MaxSubmitJobsPerUser = 1 },
			[]step{{"alice", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "theory", "plain", "", "cpu=1,node=1", 10}, ReasonQOSMaxSubJob, ReasonNone},
		{"QOS MaxSubmitJobsPerAccount", "QOS MaxSubmitJobsPerAccount", func(f *fixture) { f.p.QOS("normal").MaxSubmitJobsPerAccount = 1 },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonQOSMaxSubJobPerAcct, ReasonNone},
		{"QOS MaxTRESPerUser", "QOS MaxTRESPerUser", func(f *fixture) { f.p.QOS("normal").MaxTRESPerUser = f.tres("cpu=8") },
			[]step{{"alice", "phys", "plain", "", "cpu=8,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 10}, ReasonNone, ReasonQOSMaxCPUPerUser},
		{"QOS MaxTRESPerAccount", "QOS MaxTRESPerAccount", func(f *fixture) { f.p.QOS("normal").MaxTRESPerAccount = f.tres("gres/gpu=2") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,gres/gpu=2,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=1,gres/gpu=1,node=1", 10}, ReasonNone, ReasonQOSMaxGRESPerAcct},
		{"QOS MaxTRESPerJob", "QOS MaxTRESPerJob", func(f *fixture) { f.p.QOS("normal").MaxTRESPerJob = f.tres("cpu=4") },
			nil, step{"alice", "phys", "plain", "", "cpu=8,node=1", 10}, ReasonNone, ReasonQOSMaxCPUPerJob},
		{"QOS MaxTRESPerJob with DenyOnLimit refuses", "QOS DenyOnLimit", func(f *fixture) {
			f.p.QOS("normal").MaxTRESPerJob = f.tres("cpu=4")
			f.p.QOS("normal").Flags = DenyOnLimit
		}, nil, step{"alice", "phys", "plain", "", "cpu=8,node=1", 10}, ReasonQOSMaxCPUPerJob, ReasonNone},
		{"QOS MaxTRESPerNode", "QOS MaxTRESPerNode", func(f *fixture) { f.p.QOS("normal").MaxTRESPerNode = f.tres("mem=100") },
			nil, step{"alice", "phys", "plain", "", "cpu=1,mem=400,node=2", 10}, ReasonNone, ReasonQOSMaxMemPerNode},
		{"QOS MaxTRESMinsPerJob", "QOS MaxTRESMinsPerJob", func(f *fixture) { f.p.QOS("normal").MaxTRESMinsPerJob = f.tres("cpu=100") },
			nil, step{"alice", "phys", "plain", "", "cpu=4,node=1", 60}, ReasonNone, ReasonQOSMaxCPUMinsPerJob},
		{"QOS MaxTRESRunMinsPerUser", "QOS MaxTRESRunMinsPerUser", func(f *fixture) { f.p.QOS("normal").MaxTRESRunMinsPerUser = f.tres("cpu=100") },
			[]step{{"alice", "phys", "plain", "", "cpu=1,node=1", 60}}, step{"alice", "theory", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonQOSMaxCPURunMinsPerUser},
		{"QOS MaxTRESRunMinsPerAccount", "QOS MaxTRESRunMinsPerAccount", func(f *fixture) { f.p.QOS("normal").MaxTRESRunMinsPerAccount = f.tres("cpu=100") },
			[]step{{"bob", "phys", "plain", "", "cpu=1,node=1", 60}}, step{"alice", "phys", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonQOSMaxCPURunMinsPerAcct},
		{"QOS MinTRESPerJob", "QOS MinTRESPerJob", func(f *fixture) { f.p.QOS("normal").MinTRESPerJob = f.tres("cpu=4") },
			nil, step{"alice", "phys", "plain", "", "cpu=2,node=1", 10}, ReasonNone, ReasonQOSMinCPU},
		{"QOS MaxWall", "QOS MaxWallDurationPerJob", func(f *fixture) { f.p.QOS("normal").MaxWall = 30 },
			nil, step{"alice", "phys", "plain", "", "cpu=1,node=1", 60}, ReasonNone, ReasonQOSMaxWallPerJob},
		{"QOS MaxTRESPerUser node limit below the minimum nodes", "QOS MaxTRESPerUser (get_node_cnts)", func(f *fixture) { f.p.QOS("normal").MaxTRESPerUser = f.tres("node=1") },
			nil, step{"alice", "phys", "plain", "", "cpu=2,node=2", 10}, ReasonNone, ReasonQOSMaxNodePerUser},
		{"LimitFactor scales association limits", "QOS LimitFactor", func(f *fixture) {
			f.p.Account("phys").Limits.GrpTRES = f.tres("cpu=2")
			f.p.QOS("normal").LimitFactor = 2
		}, []step{{"bob", "phys", "plain", "", "cpu=2,node=1", 10}}, step{"alice", "phys", "plain", "", "cpu=2,node=1", 10}, ReasonNone, ReasonNone},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "gres/gpu", "license/matlab")
			c.setup(f)
			f.p.Finish()
			mk := func(id uint32, s step) *Job {
				q := s.qos
				if q == "" {
					q = "normal"
				}
				j := f.job(id, s.user, s.account, s.part, q, s.req, s.minutes)
				if q == "none" {
					j.qos = nil
				}
				return j
			}
			for i, s := range c.run {
				j := mk(uint32(i+1), s)
				if r := f.submit(j); r != ReasonNone {
					t.Fatalf("running job %d refused: %s", i+1, r)
				}
				if r := f.start(j, []uint32{7}, 100); r != ReasonNone {
					t.Fatalf("running job %d held: %s", i+1, r)
				}
			}
			j := mk(99, c.job)
			if c.job.req != "" && j.Req[TRESNode] > 1 {
				j.MinNodes = uint32(j.Req[TRESNode])
			}
			if r := f.submit(j); r != c.submit {
				t.Fatalf("%s: submit %s, want %s", c.section, r, c.submit)
			}
			if c.submit != ReasonNone {
				return
			}
			var nodes []uint32
			for n := uint32(0); n < uint32(j.Req[TRESNode]); n++ {
				nodes = append(nodes, 7+n)
			}
			if r := f.start(j, nodes, 100); r != c.start {
				t.Errorf("%s: start %s, want %s", c.section, r, c.start)
			}
		})
	}
}

// TestMaxWallSetsMissingTimeLimit: acct_policy_validate gives a job
// without a time limit its QOS's (or association's) MaxWall.
func TestMaxWallSetsMissingTimeLimit(t *testing.T) {
	f := newFixture(t)
	f.p.QOS("normal").MaxWall = 45
	f.p.User("bob", "phys", "").Limits.MaxWall = 30
	f.p.Finish()
	j := f.job(1, "alice", "phys", "plain", "normal", "cpu=1,node=1", NoVal)
	if r := f.submit(j); r != ReasonNone || j.TimeLimit != 45 {
		t.Errorf("QOS MaxWall: %s, time limit %d, want 45", r, j.TimeLimit)
	}
	j = f.job(2, "bob", "phys", "plain", "normal", "cpu=1,node=1", NoVal)
	if r := f.submit(j); r != ReasonNone || j.TimeLimit != 45 {
		t.Errorf("QOS first: %s, time limit %d, want 45", r, j.TimeLimit)
	}
	f.p.QOS("normal").MaxWall = Infinite
	j = f.job(3, "bob", "phys", "plain", "normal", "cpu=1,node=1", NoVal)
	if r := f.submit(j); r != ReasonNone || j.TimeLimit != 30 {
		t.Errorf("assoc MaxWall: %s, time limit %d, want 30", r, j.TimeLimit)
	}
}

// TestAdminSetTRESBypasses: a TRES an administrator set on the job is not
// checked against the limits (ADMIN_SET_LIMIT).
func TestAdminSetTRESBypasses(t *testing.T) {
	f := newFixture(t)
	f.p.QOS("normal").MaxTRESPerJob = f.tres("cpu=4")
	j := f.job(1, "alice", "phys", "plain", "normal", "cpu=8,node=1", 10)
	j.AdminTRES = make([]bool, f.p.TRES.Len())
	j.AdminTRES[TRESCPU] = true
	f.submit(j)
	if r := f.start(j, []uint32{1}, 0); r != ReasonNone {
		t.Errorf("admin-set cpu held: %s", r)
	}
}

// TestEnforceDecides: without "limits" in AccountingStorageEnforce no
// limit holds a job; with only "associations" an unknown user is refused.
func TestEnforceDecides(t *testing.T) {
	f := newFixture(t)
	f.p.QOS("normal").MaxTRESPerJob = f.tres("cpu=4")
	f.p.Enforce = EnforceAssociations
	j := f.job(1, "alice", "phys", "plain", "normal", "cpu=8,node=1", 10)
	if r := f.start(j, []uint32{1}, 0); r != ReasonNone {
		t.Errorf("limits not enforced, held: %s", r)
	}
	if err := f.p.Bind(&Job{User: "mallory", Account: "phys"}); err != ErrInvalidAccount {
		t.Errorf("unknown user: %v", err)
	}
	f.p.Enforce = 0
	if err := f.p.Bind(&Job{User: "mallory", Account: "phys"}); err != nil {
		t.Errorf("no enforcement, unknown user: %v", err)
	}
	for _, c := range []struct {
		in, want string
	}{
		{"limits", "associations,limits"},
		{"safe", "associations,limits,safe"},
		{"qos", "associations,qos"},
		{"nojobs", "nojobs,nosteps"},
		{"associations,limits,qos,safe", "associations,limits,qos,safe"},
	} {
		e, err := ParseEnforce(c.in)
		if err != nil || e.String() != c.want {
			t.Errorf("ParseEnforce(%q) = %v, %v; want %s", c.in, e, err, c.want)
		}
	}
	if _, err := ParseEnforce("limitz"); err == nil {
		t.Error("unknown option accepted")
	}
}

// TestSafeGrpTRESMins: with safe enforcement a job starts only if its
// TRES-minutes fit in what is left of GrpTRESMins; without, it starts
// while usage is below the limit.
func TestSafeGrpTRESMins(t *testing.T) {
	for _, c := range []struct {
		safe bool
		want Reason
	}{{false, ReasonNone}, {true, ReasonAssocGrpCPUMin}} {
		f := newFixture(t)
		f.p.Account("phys").Limits.GrpTRESMins = f.tres("cpu=100")
		if c.safe {
			f.p.Enforce |= EnforceSafe
		}
		f.p.Finish()
		j := f.job(1, "alice", "phys", "plain", "normal", "cpu=2,node=1", 60)
		f.submit(j)
		if r := f.start(j, []uint32{1}, 0); r != c.want {
			t.Errorf("safe=%v: %s, want %s", c.safe, r, c.want)
		}
	}
	// Usage past the limit holds a job even without safe; the level is the
	// account that set the limit.
	f := newFixture(t)
	f.p.Account("phys").Limits.GrpTRESMins = f.tres("cpu=10")
	f.p.Finish()
	j := f.job(1, "alice", "phys", "plain", "normal", "cpu=1,node=1", 60)
	f.submit(j)
	f.start(j, []uint32{1}, 0)
	f.p.End(j, 11*60)
	j2 := f.job(2, "alice", "phys", "plain", "normal", "cpu=1,node=1", 60)
	f.submit(j2)
	if r := f.start(j2, []uint32{1}, 11*60); r != ReasonAssocGrpCPUMin {
		t.Errorf("usage over GrpTRESMins: %s", r)
	}
	if lvl := f.p.FailedLevel(j2); lvl != "account association phys" {
		t.Errorf("held at %q", lvl)
	}
}
