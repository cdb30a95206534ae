package sim

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Job states in the per-job output: Slurm's names, plus SKIPPED for a job
// the trace gives no size, REFUSED for one larger than the partition (which
// sbatch would refuse) and NEVER_STARTED for one still pending when the
// simulation ends.
const (
	statePending   = "PENDING"
	stateRunning   = "RUNNING"
	stateCompleted = "COMPLETED"
	stateFailed    = "FAILED"
	stateCancelled = "CANCELLED"
	stateTimeout   = "TIMEOUT"
	stateNodeFail  = "NODE_FAIL"
	stateSkipped   = "SKIPPED"
	stateRefused   = "REFUSED"
	stateNever     = "NEVER_STARTED"
	stateSuspended = "SUSPENDED"
	statePreempted = "PREEMPTED"
)

// BSLDBound is τ of the bounded slowdown, max(1, (wait+run)/max(run, τ)):
// 10 seconds, the usual bound (Feitelson et al., "Theory and practice in
// parallel job scheduling", 1997).
const BSLDBound = 10

// ReasonChange is a pending job's reason from Time on.
type ReasonChange struct {
	Time   int64  `json:"t"`
	Reason string `json:"reason"`
}

// JobRecord is one job's outcome. Times are seconds from the trace's start;
// -1 means never (not eligible, not started, not ended).
type JobRecord struct {
	// ID is the job's number in the trace.
	ID int64 `json:"id"`
	// Submit, Eligible, Start and End are when the job was submitted,
	// became eligible, started and ended.
	Submit   int64 `json:"submit"`
	Eligible int64 `json:"eligible"`
	Start    int64 `json:"start"`
	End      int64 `json:"end"`
	// Wait is Start-Submit (-1 if never started).
	Wait int64 `json:"wait"`
	// Procs is the trace's processor count; Nodes and CPUs what the job
	// was given.
	Procs int `json:"procs"`
	Nodes int `json:"nodes"`
	CPUs  int `json:"cpus"`
	// TimeLimit is the limit the job ran with (s); Run its recorded run
	// time.
	TimeLimit int64 `json:"time_limit"`
	Run       int64 `json:"run"`
	// State is how the job ended; Backfilled says the backfill pass
	// started it.
	State      string `json:"state"`
	Backfilled bool   `json:"backfilled"`
	// Requeues counts the times preemption requeued the job.
	Requeues int `json:"requeues,omitempty"`
	// Reasons are its pending reasons over time.
	Reasons []ReasonChange `json:"reasons"`
}

// Sample is the queue at Time: jobs pending and running, CPUs busy.
type Sample struct {
	Time     int64 `json:"t"`
	Pending  int   `json:"pending"`
	Running  int   `json:"running"`
	BusyCPUs int   `json:"busy_cpus"`
}

// Summary is a simulation's metrics. Waits and slowdowns count the jobs
// that started; percentiles interpolate linearly between ranks (as numpy's
// and pandas' quantile do by default).
type Summary struct {
	Policy   string `json:"policy"`
	Overrun  string `json:"overrun"`
	Nodes    int    `json:"nodes"`
	CPUs     int    `json:"cpus"`
	Jobs     int    `json:"jobs"`
	Started  int    `json:"started"`
	Skipped  int    `json:"skipped"`
	Refused  int    `json:"refused"`
	Never    int    `json:"never_started"`
	Killed   int    `json:"killed_at_limit"`
	Canceled int    `json:"cancelled"`

	MeanWait   float64 `json:"mean_wait_s"`
	MedianWait float64 `json:"median_wait_s"`
	P95Wait    float64 `json:"p95_wait_s"`
	MaxWait    float64 `json:"max_wait_s"`
	MeanBSLD   float64 `json:"mean_bsld"`
	P95BSLD    float64 `json:"p95_bsld"`
	// MeanResponse is the mean of wait+run.
	MeanResponse float64 `json:"mean_response_s"`
	// Utilization is the CPU-seconds the jobs held over the partition's
	// CPUs times the makespan; Makespan runs from the first submission to
	// the last end.
	Utilization float64 `json:"utilization"`
	Makespan    int64   `json:"makespan_s"`
	// Backfilled counts the jobs the backfill pass started.
	Backfilled int `json:"backfilled_jobs"`
	// HeldPerReason counts, per pending reason, the jobs that pended with
	// it at some point.
	HeldPerReason map[string]int `json:"held_per_reason"`
	// Passes counts the Ticks that ran a pass; MainPasses and
	// BackfillPasses each kind.
	Passes         int `json:"passes"`
	MainPasses     int `json:"main_passes"`
	BackfillPasses int `json:"backfill_passes"`
	// MeanPassMS and MaxPassMS are the wall time of a Tick that ran a pass
	// (main and backfill together); WallSeconds the whole run's; SimDays
	// PerHour simulated days per wall-clock hour. All zero without a
	// WallClock.
	MeanPassMS     float64 `json:"mean_pass_ms"`
	MaxPassMS      float64 `json:"max_pass_ms"`
	WallSeconds    float64 `json:"wall_s"`
	SimDaysPerHour float64 `json:"sim_days_per_hour"`
	passTotal      time.Duration
	passMax        time.Duration
}

// Result is a simulation's outcome: every job in trace order, the metrics,
// and the queue over time.
type Result struct {
	Jobs    []JobRecord
	Summary Summary
	Series  []Sample
}

// finishRates fills the wall-time figures once WallSeconds is known.
func (s *Summary) finishRates() {
	if s.Passes > 0 {
		s.MeanPassMS = float64(s.passTotal) / float64(s.Passes) / float64(time.Millisecond)
	}
	s.MaxPassMS = float64(s.passMax) / float64(time.Millisecond)
	if s.WallSeconds > 0 {
		s.SimDaysPerHour = float64(s.Makespan) / 86400 / (s.WallSeconds / 3600)
	}
}

// result finishes the records and computes the metrics.
func (r *run) result() *Result {
	s := Summary{Policy: string(r.opt.Policy), Overrun: r.opt.Overrun.String(), CPUs: r.totalCPUs, Jobs: len(r.recs), HeldPerReason: map[string]int{}}
	s.Nodes = int(r.opt.Cluster.Partitions[r.opt.Partition].Nodes.GetCardinality())
	var waits, bslds []float64
	var sumResp, cpuSec float64
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range r.recs {
		rec := &r.recs[i]
		if j := r.sj[i]; j != nil && j.Eligible > 0 {
			rec.Eligible = j.Eligible - r.base
		}
		switch rec.State {
		case stateSkipped:
			s.Skipped++
			continue
		case stateRefused:
			s.Refused++
			continue
		case statePending:
			rec.State = stateNever
			s.Never++
		case stateCancelled:
			s.Canceled++
		case stateTimeout:
			s.Killed++
		}
		first = min(first, rec.Submit)
		seen := map[string]bool{}
		for _, c := range rec.Reasons {
			if c.Reason != "None" && !seen[c.Reason] {
				seen[c.Reason] = true
				s.HeldPerReason[c.Reason]++
			}
		}
		if rec.Start < 0 {
			rec.Wait = -1
			continue
		}
		s.Started++
		if rec.Backfilled {
			s.Backfilled++
		}
		rec.Wait = rec.Start - rec.Submit
		run := rec.End - rec.Start
		wait := float64(rec.Wait)
		waits = append(waits, wait)
		bslds = append(bslds, max(1, (wait+float64(run))/max(float64(run), BSLDBound)))
		sumResp += wait + float64(run)
		cpuSec += float64(run) * float64(rec.CPUs)
		last = max(last, rec.End)
	}
	if n := float64(len(waits)); n > 0 {
		s.MeanWait = mean(waits)
		s.MeanBSLD = mean(bslds)
		s.MeanResponse = sumResp / n
		slices.Sort(waits)
		sort.Float64s(bslds)
		s.MedianWait = quantile(waits, 0.5)
		s.P95Wait = quantile(waits, 0.95)
		s.MaxWait = waits[len(waits)-1]
		s.P95BSLD = quantile(bslds, 0.95)
		s.Makespan = last - first
		if s.Makespan > 0 && s.CPUs > 0 {
			s.Utilization = cpuSec / (float64(s.CPUs) * float64(s.Makespan))
		}
	}
	s.Passes, s.MainPasses, s.BackfillPasses = r.stats.ticks, r.stats.main, r.stats.backfill
	s.passTotal, s.passMax = r.stats.total, r.stats.max
	return &Result{Jobs: r.recs, Summary: s, Series: r.series}
}

// mean sums in order, so the result does not depend on anything but xs.
func mean(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// quantile is the p-quantile of sorted xs by linear interpolation between
// the closest ranks (numpy's and pandas' default).
func quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	h := p * float64(len(xs)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-lo)*(xs[i+1]-xs[i])
}
