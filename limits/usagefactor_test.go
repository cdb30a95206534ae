package limits

import "testing"

// TestUsageFactor: resource_limits "UsageFactor": a job's TRES-minutes and
// wall time count UsageFactor times; 0 counts nothing. The charged usage
// then holds (or not) the next job under GrpTRESMins (acct_policy post
// select). sift charges usage when a job ends (docs/COMPATIBILITY.md).
func TestUsageFactor(t *testing.T) {
	for _, c := range []struct {
		factor float64
		want   Reason
	}{{2, ReasonQOSGrpCPUMin}, {0.5, ReasonNone}, {0, ReasonNone}} {
		f := newFixture(t)
		q := f.p.QOS("normal")
		q.UsageFactor = c.factor
		q.GrpTRESMins[TRESCPU] = 15
		j := f.job(1, "alice", "phys", "plain", "normal", "cpu=1,node=1", 60)
		f.submit(j)
		f.start(j, []uint32{1}, 0)
		f.p.End(j, 600) // 10 CPU-minutes
		j2 := f.job(2, "alice", "phys", "plain", "normal", "cpu=1,node=1", 1)
		f.submit(j2)
		if r := f.start(j2, []uint32{1}, 600); r != c.want {
			t.Errorf("UsageFactor %g: %s, want %s", c.factor, r, c.want)
		}
	}
}

// TestUsageFactorSafe: resource_limits "UsageFactor": with safe
// enforcement, a QOS with UsageFactorSafe checks TRES-minutes limits with
// the factor applied to the time limit; without the flag, without it.
func TestUsageFactorSafe(t *testing.T) {
	for _, c := range []struct {
		flags QOSFlags
		want  Reason
	}{{UsageFactorSafe, ReasonQOSGrpCPUMin}, {0, ReasonNone}} {
		f := newFixture(t)
		f.p.Enforce |= EnforceSafe
		q := f.p.QOS("normal")
		q.UsageFactor, q.Flags = 2, c.flags
		q.GrpTRESMins[TRESCPU] = 100
		j := f.job(1, "alice", "phys", "plain", "normal", "cpu=1,node=1", 60)
		f.submit(j)
		if r := f.start(j, []uint32{1}, 0); r != c.want {
			t.Errorf("flags %q: %s, want %s", c.flags, r, c.want)
		}
	}
}

// TestNoDecay: resource_limits "GrpTRESMins": usage decays with
// PriorityDecayHalfLife, except a QOS with NoDecay keeps it.
func TestNoDecay(t *testing.T) {
	for _, c := range []struct {
		flags QOSFlags
		want  float64
	}{{0, 300}, {NoDecay, 600}} {
		f := newFixture(t)
		f.p.DecayHalfLife = 3600
		q := f.p.QOS("normal")
		q.Flags = c.flags
		j := f.job(1, "alice", "phys", "plain", "normal", "cpu=1,node=1", 60)
		f.submit(j)
		f.start(j, []uint32{1}, 0)
		f.p.End(j, 600)
		f.p.Decay(3600)
		if got := q.usage.usageRaw[TRESCPU]; got != c.want {
			t.Errorf("flags %q: QOS usage %g CPU-seconds after a half-life, want %g", c.flags, got, c.want)
		}
		if got := f.p.Account("phys").usage.usageRaw[TRESCPU]; got != 300 {
			t.Errorf("association usage %g, want it halved to 300", got)
		}
	}
}

// TestGrpWallUsage: resource_limits "GrpWall": wall time used by ended
// jobs counts against GrpWall (in whole minutes, as acct_policy divides
// grp_used_wall by 60).
func TestGrpWallUsage(t *testing.T) {
	f := newFixture(t)
	f.p.Account("phys").Limits.GrpWall = 2
	f.p.Finish()
	for i, end := range []int64{60, 119} {
		j := f.job(uint32(i+1), "alice", "phys", "plain", "normal", "cpu=1,node=1", 5)
		f.submit(j)
		if r := f.start(j, []uint32{1}, 0); r != ReasonNone {
			t.Fatalf("job %d: %s", i+1, r)
		}
		f.p.End(j, end)
	}
	// 179 s used: 2 whole minutes, at the limit.
	j := f.job(3, "alice", "phys", "plain", "normal", "cpu=1,node=1", 5)
	f.submit(j)
	if r := f.start(j, []uint32{1}, 200); r != ReasonAssocGrpWall {
		t.Errorf("after 179 s: %s, want AssocGrpWallLimit", r)
	}
}
