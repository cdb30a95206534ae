package limits

import "testing"

// No recording covers accrue limits yet: these follow acct_policy.c
// (_get_accrue_limits, _handle_add_accrue, _handle_accrue_time,
// acct_policy_remove_accrue_time, acct_policy_get_prio_thresh) at 284c3b95.

func TestAccrueLimitsBoundAccruingJobs(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fixture)
		qos   string
		// jobs are alice's (account theory) unless user says otherwise.
		users []string
		want  []int64 // AccrueTime of each job after one pass at now=100
	}{
		{"no limit: every job accrues from its begin time", func(f *fixture) {}, "normal",
			[]string{"alice", "alice", "alice"}, []int64{10, 10, 10}},
		{"QOS GrpJobsAccrue=2: the third waits, the others accrue from now", func(f *fixture) {
			f.p.QOS("normal").GrpJobsAccrue = 2
		}, "normal", []string{"alice", "bob", "alice"}, []int64{100, 100, 0}},
		{"QOS MaxJobsAccruePerUser=1 counts per user", func(f *fixture) {
			f.p.QOS("normal").MaxJobsAccruePerUser = 1
		}, "normal", []string{"alice", "alice", "bob"}, []int64{100, 0, 100}},
		{"QOS MaxJobsAccruePerAccount=1 counts per account", func(f *fixture) {
			f.p.QOS("normal").MaxJobsAccruePerAccount = 1
		}, "normal", []string{"alice", "bob", "alice"}, []int64{100, 100, 0}},
		{"partition QOS accrue limits do not apply", func(f *fixture) {
			f.p.QOS("pq").GrpJobsAccrue = 1
		}, "normal", []string{"alice", "alice"}, []int64{10, 10}},
		{"account GrpJobsAccrue counts the children", func(f *fixture) {
			f.p.Account("phys").Limits.GrpJobsAccrue = 1
		}, "normal", []string{"alice", "bob"}, []int64{100, 0}},
		{"a user's MaxJobsAccrue is inherited from its account", func(f *fixture) {
			f.p.Account("theory").Limits.MaxJobsAccrue = 1
			f.p.Finish()
		}, "normal", []string{"alice", "alice", "bob"}, []int64{100, 0, 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.setup(f)
			var jobs []*Job
			for i, u := range tc.users {
				acct := "theory"
				if u == "bob" {
					acct = "phys"
				}
				j := f.job(uint32(i+1), u, acct, "batch", tc.qos, "cpu=1,node=1", 10)
				f.p.HandleAccrue(j, true, true, 10, 100)
				jobs = append(jobs, j)
			}
			for i, j := range jobs {
				if got := j.AccrueTime(); got != tc.want[i] {
					t.Errorf("job %d: AccrueTime %d, want %d", i+1, got, tc.want[i])
				}
			}
		})
	}
}

func TestAccrueCountsReturnToZero(t *testing.T) {
	f := newFixture(t)
	q := f.p.QOS("normal")
	q.GrpJobsAccrue = 5
	a := f.job(1, "alice", "theory", "batch", "normal", "cpu=1,node=1", 10)
	b := f.job(2, "alice", "theory", "batch", "normal", "cpu=1,node=1", 10)
	for _, j := range []*Job{a, b} {
		f.p.HandleAccrue(j, true, true, 10, 100)
	}
	phys, theory := f.p.Account("phys"), f.p.Account("theory")
	if q.AccrueCount() != 2 || q.UserAccrueCount("alice") != 2 || q.AccountAccrueCount("theory") != 2 ||
		theory.AccrueCount() != 2 || phys.AccrueCount() != 2 || f.p.Root.AccrueCount() != 2 {
		t.Fatalf("after two accruing jobs: qos %d user %d account %d theory %d phys %d root %d, want 2 each",
			q.AccrueCount(), q.UserAccrueCount("alice"), q.AccountAccrueCount("theory"),
			theory.AccrueCount(), phys.AccrueCount(), f.p.Root.AccrueCount())
	}
	// a starts: the next pass takes it out of the counts, its time stays.
	f.submit(a)
	f.p.Begin(a, f.req("cpu=1,node=1"), []uint32{0}, 200)
	f.p.HandleAccrue(a, false, true, 10, 200)
	if q.AccrueCount() != 1 || a.AccrueTime() != 100 {
		t.Fatalf("after a started: qos count %d (want 1), a's accrue time %d (want 100)", q.AccrueCount(), a.AccrueTime())
	}
	// b is held: it stops accruing.
	f.p.RemoveAccrue(b)
	if q.AccrueCount() != 0 || b.AccrueTime() != 0 {
		t.Fatalf("after b was held: qos count %d, b's accrue time %d, want 0 and 0", q.AccrueCount(), b.AccrueTime())
	}
	f.p.HandleAccrue(b, true, true, 10, 300)
	f.p.End(a, 400)
	f.p.End(b, 400)
	for _, c := range []uint32{q.AccrueCount(), q.UserAccrueCount("alice"), q.AccountAccrueCount("theory"),
		theory.AccrueCount(), phys.AccrueCount(), f.p.Root.AccrueCount()} {
		if c != 0 {
			t.Fatalf("a count is %d after every job ended, want 0", c)
		}
	}
}

func TestAccrueWithoutEnforceLimits(t *testing.T) {
	f := newFixture(t)
	f.p.Enforce = EnforceAssociations
	f.p.QOS("normal").GrpJobsAccrue = 0
	j := f.job(1, "alice", "theory", "batch", "normal", "cpu=1,node=1", 10)
	f.p.HandleAccrue(j, true, false, 10, 100)
	if j.AccrueTime() != 10 || f.p.QOS("normal").AccrueCount() != 0 {
		t.Fatalf("AccrueTime %d count %d, want 10 and 0: limits not enforced", j.AccrueTime(), f.p.QOS("normal").AccrueCount())
	}
}

func TestPrioThresholdOrder(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fixture)
		part  string
		want  uint32
	}{
		{"none set", func(f *fixture) {}, "batch", 0},
		{"partition QOS first", func(f *fixture) {
			f.p.QOS("pq").MinPrioThreshold = 500
			f.p.QOS("normal").MinPrioThreshold = 700
		}, "batch", 500},
		{"OverPartQOS puts the job QOS first", func(f *fixture) {
			f.p.QOS("pq").MinPrioThreshold = 500
			f.p.QOS("normal").MinPrioThreshold = 700
			f.p.QOS("normal").Flags |= OverPartQOS
		}, "batch", 700},
		{"association's, inherited, when no QOS sets one", func(f *fixture) {
			f.p.Account("phys").Limits.MinPrioThreshold = 300
			f.p.Finish()
		}, "plain", 300},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.setup(f)
			j := f.job(1, "alice", "theory", tc.part, "normal", "cpu=1,node=1", 10)
			if got := f.p.PrioThreshold(j); got != tc.want {
				t.Errorf("PrioThreshold %d, want %d", got, tc.want)
			}
		})
	}
}
