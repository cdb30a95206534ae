package priority

import (
	"math"
	"time"

	"github.com/nodesift/sift/limits"
)

// RunningJob is what usage needs of a running job.
type RunningJob struct {
	ID uint32
	// Assoc is the job's association; its usage goes to it and every
	// ancestor up to root.
	Assoc *limits.Assoc
	// UsageFactor is the job QOS's UsageFactor (1 without a QOS).
	UsageFactor float64
	// Start is the start time; End the end time once the job ended (0
	// while it runs).
	Start, End int64
	// TimeLimit is the time limit in minutes (limits.Infinite: none).
	TimeLimit uint32
	// Billing is the job's billable TRES (calc_job_billable_tres);
	// Alloc the allocated TRES (tres_alloc_cnt).
	Billing float64
	Alloc   limits.Vector

	// endExp is end_time_exp; done marks usage already charged to the end.
	endExp int64
	done   bool
}

// Usage is the priority plugin's decay thread: it charges running jobs'
// usage to their associations every calculation period, decays all usage
// with the half-life, resets it by PriorityUsageResetPeriod, and then
// recomputes fair-share. Times are Unix seconds.
type Usage struct {
	shares *Shares
	cfg    Config
	// decayFactor is Slurm's per-second decay, 1 - 0.693/half-life (the
	// first term of the series of 2^(-1/half-life)).
	decayFactor float64
	// LastRan is when the thread last ran (g_last_ran, 0 before the
	// first run); LastReset when usage was last reset.
	LastRan, LastReset int64
	nextReset          int64
	resetPending       bool
	running            map[uint32]*RunningJob
}

// NewUsage returns the decay thread over shares with cfg's half-life,
// reset period and flags. The usage in shares is kept.
func NewUsage(shares *Shares, cfg Config) *Usage {
	u := &Usage{shares: shares, cfg: cfg, decayFactor: 1, running: map[uint32]*RunningJob{},
		resetPending: cfg.UsageReset == ResetNow}
	if cfg.DecayHalfLife > 0 {
		u.decayFactor = 1 - 0.693/float64(cfg.DecayHalfLife)
	}
	return u
}

// DecayFactor is the per-second decay factor.
func (u *Usage) DecayFactor() float64 { return u.decayFactor }

// Begin adds a started job (acct_policy_job_begin's run seconds): every
// association up to root counts its TRES × time limit × UsageFactor as
// TRES-seconds to run.
func (u *Usage) Begin(j *RunningJob) {
	j.endExp = j.Start + int64(j.TimeLimit)*60
	if j.TimeLimit == limits.Infinite {
		j.endExp = math.MaxInt64 / 2
	}
	u.running[j.ID] = j
	secs := float64(uint64(float64(uint64(j.TimeLimit)*60) * j.uf()))
	for n := u.shares.Node(j.Assoc); n != nil; n = n.Parent {
		for i, c := range j.Alloc {
			if i < len(n.RunSecs) && c != limits.Infinite64 && i != limits.TRESEnergy {
				n.RunSecs[i] += float64(c) * secs
			}
		}
	}
}

func (j *RunningJob) uf() float64 {
	if j.UsageFactor >= 0 {
		return j.UsageFactor
	}
	return 1
}

// End is priority_p_job_end: the job ended at now; the usage since the
// last run is charged, up to its end.
func (u *Usage) End(id uint32, now int64) {
	j := u.running[id]
	if j == nil {
		return
	}
	if j.End == 0 || j.End > now {
		j.End = now
	}
	u.applyNewUsage(j, u.LastRan, now, true)
	delete(u.running, id)
}

// Running is the running job of id (nil if none).
func (u *Usage) Running(id uint32) *RunningJob { return u.running[id] }

// applyNewUsage is _apply_new_usage: the job's usage from start to end
// (clipped to its run), decayed as Slurm approximates it, times billing
// and UsageFactor, goes to every association up to root; its remaining
// run seconds shrink by the time passed.
func (u *Usage) applyNewUsage(j *RunningJob, start, end int64, atEnd bool) {
	if j.done {
		return
	}
	if j.Start > start {
		start = j.Start
	}
	if atEnd && j.End != 0 && end > j.End {
		end = j.End
	}
	runDelta := float64(end - start)
	if runDelta < 0 {
		runDelta = 0
	}
	limitEnd := j.Start + int64(j.TimeLimit)*60
	if j.TimeLimit == limits.Infinite {
		limitEnd = math.MaxInt64 / 2
	}
	var timeDelta float64
	switch {
	case start >= limitEnd:
	case atEnd:
		timeDelta = float64(limitEnd - start)
	case end > j.endExp:
		if d := j.endExp - start; d > 0 {
			timeDelta = float64(d)
		}
	default:
		timeDelta = runDelta
	}
	if atEnd {
		j.done = true
	}
	runDecay := runDelta * math.Pow(u.decayFactor, runDelta)
	uf := j.uf()
	real := runDecay * j.Billing * uf
	timeDelta = float64(uint64(timeDelta * uf))
	for n := u.shares.Node(j.Assoc); n != nil; n = n.Parent {
		n.UsageRaw += real
		for i, c := range j.Alloc {
			if i >= len(n.RunSecs) || c == 0 || c == limits.Infinite64 || i == limits.TRESEnergy {
				continue
			}
			n.RunSecs[i] = math.Max(n.RunSecs[i]-timeDelta*float64(c), 0)
		}
	}
}

// Tick is one run of the decay thread at now: reset usage if a reset is
// due, decay all usage by the time since the last run, charge running
// jobs' new usage, and recompute fair-share. Classic fair-share computes
// the accounts' effective usage before the new usage (as slurmctld does)
// and the users' after.
func (u *Usage) Tick(now int64) {
	s := u.shares
	u.reset(now)
	fairTree := s.flags&FairTree != 0
	if !fairTree {
		s.Root.UsageEfctv, s.Root.efctvSet = 1, true
		s.classicAccounts()
	}
	charge := fairTree
	if u.LastRan != 0 && now > u.LastRan {
		d := math.Pow(u.decayFactor, float64(now-u.LastRan))
		if d < math.SmallestNonzeroFloat64 {
			d = math.SmallestNonzeroFloat64
		}
		if d != 1 {
			for _, n := range s.Nodes {
				n.UsageRaw *= d
			}
		}
		charge = true
	}
	if charge {
		for _, j := range u.running {
			u.applyNewUsage(j, u.LastRan, now, false)
		}
	}
	if fairTree {
		s.Compute()
	} else {
		s.classicUsers()
	}
	u.LastRan = now
}

// Advance runs the thread every CalcPeriod from the last run up to now
// (the first run at now if it never ran).
func (u *Usage) Advance(now int64) {
	if u.LastRan == 0 {
		u.Tick(now)
		return
	}
	p := max(u.cfg.CalcPeriod, 1)
	for t := u.LastRan + p; t <= now; t += p {
		u.Tick(t)
	}
}

// reset is the thread's PriorityUsageResetPeriod handling: NOW resets
// once; the periodic ones at the next day, week (Sunday), month, quarter
// or year boundary after the last reset, in UTC (slurmctld uses local
// time).
func (u *Usage) reset(now int64) {
	if u.LastReset == 0 {
		u.LastReset = now
	}
	switch u.cfg.UsageReset {
	case ResetNone:
		return
	case ResetNow:
		if u.resetPending {
			u.zero()
			u.resetPending = false
			u.LastReset = now
		}
		return
	}
	if u.nextReset == 0 {
		u.nextReset = nextReset(u.cfg.UsageReset, u.LastReset, now)
	}
	if u.nextReset != 0 && now >= u.nextReset {
		u.zero()
		u.LastReset = u.nextReset
		u.nextReset = nextReset(u.cfg.UsageReset, u.LastReset, now)
	}
}

func (u *Usage) zero() {
	for _, n := range u.shares.Nodes {
		n.UsageRaw = 0
	}
}

// nextReset is _next_reset: the boundary after last, skipping whole days
// or weeks already past by now.
func nextReset(p ResetPeriod, last, now int64) int64 {
	t := time.Unix(last, 0).UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	const dayS, weekS = 24 * 3600, 7 * 24 * 3600
	switch p {
	case ResetDaily:
		r := day.Unix() + dayS
		for r+dayS < now {
			r += dayS
		}
		return r
	case ResetWeekly:
		r := day.Unix() + dayS*int64(7-int(t.Weekday()))
		for r+weekS < now {
			r += weekS
		}
		return r
	case ResetMonthly:
		return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC).Unix()
	case ResetQuarterly:
		m := t.Month()
		switch {
		case m < 4:
			m = 4
		case m < 7:
			m = 7
		case m < 10:
			m = 10
		default:
			return time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		}
		return time.Date(t.Year(), m, 1, 0, 0, 0, 0, time.UTC).Unix()
	case ResetYearly:
		return time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	return 0
}
