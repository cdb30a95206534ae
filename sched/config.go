package sched

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nodesift/sift/position"
)

// Config holds the SchedulerParameters knobs sift models, under Slurm's
// names, with Slurm's defaults from DefaultConfig.
type Config struct {
	// DefaultQueueDepth is default_queue_depth: the jobs an event-triggered
	// (not full) main pass tests.
	DefaultQueueDepth int
	// PartitionJobDepth is partition_job_depth: jobs tested per partition
	// in one main pass (0: no limit).
	PartitionJobDepth int
	// SchedMaxJobStart is sched_max_job_start: jobs the main pass starts
	// (0: no limit).
	SchedMaxJobStart int
	// SchedInterval is sched_interval: the period of full main passes.
	SchedInterval time.Duration
	// AssocLimitStop is assoc_limit_stop: a job held by a limit blocks its
	// partition too.
	AssocLimitStop bool
	// MaxSchedTime is max_sched_time: the time budget of one main pass,
	// on the queue's WallClock (live use) or counted with SchedTestCost
	// (simulation).
	MaxSchedTime time.Duration
	// SchedTestCost is sift's deterministic stand-in for the wall clock of
	// max_sched_time in simulations: each job the main pass tests counts
	// as SchedTestCost, so a pass stops after MaxSchedTime/SchedTestCost
	// jobs (0: no count).
	SchedTestCost time.Duration
	// BatchSchedDelay is batch_sched_delay: how long a submission waits
	// for its event-triggered main pass.
	BatchSchedDelay time.Duration

	// BFInterval is bf_interval; BFResolution bf_resolution (time slots are
	// rounded to it); BFWindow bf_window (how far ahead backfill plans).
	BFInterval, BFResolution, BFWindow time.Duration
	// BFMaxJobTest is bf_max_job_test: jobs backfill tests in one pass.
	BFMaxJobTest int
	// BFNodeSpaceSize is bf_node_space_size: the records the time-slot map
	// may hold; a pass stops when a reservation would need more (0:
	// BFMaxJobTest, Slurm's default).
	BFNodeSpaceSize int
	// BFMaxTime is bf_max_time: the time budget of one backfill pass, on
	// the queue's WallClock (live use) or counted with BFTestCost
	// (simulation); yield sleeps count too, as in Slurm.
	BFMaxTime time.Duration
	// BFTestCost is sift's deterministic stand-in for the wall clock of
	// bf_max_time and bf_yield_interval in simulations: each test round of
	// a job (one pass of backfill.c's TRY_LATER loop) counts as BFTestCost
	// of elapsed time, so without yields a pass stops after
	// BFMaxTime/BFTestCost rounds (0: no count, no yields).
	BFTestCost time.Duration
	// BFYieldInterval and BFYieldSleep are bf_yield_interval and
	// bf_yield_sleep: every BFYieldInterval of the pass's time backfill
	// yields (Options.Yield) and BFYieldSleep is added to a counted pass's
	// time, as slurmctld's sleep counts in its bf_max_time.
	BFYieldInterval, BFYieldSleep time.Duration
	// BFContinue is bf_continue: a yield during which jobs or nodes changed
	// does not end the pass.
	BFContinue bool
	// BFMinPrioReserve and BFMinAgeReserve are bf_min_prio_reserve and
	// bf_min_age_reserve: jobs below that priority or younger than that
	// get no reservation (and do not block their partition in the main
	// pass).
	BFMinPrioReserve uint32
	BFMinAgeReserve  time.Duration
	// BFMaxJobUser, BFMaxJobPart, BFMaxJobAssoc and BFMaxJobUserPart are
	// bf_max_job_user, bf_max_job_part, bf_max_job_assoc and
	// bf_max_job_user_part: jobs tested per user, partition, association
	// (account and user) and user in a partition per pass (0: no limit).
	BFMaxJobUser, BFMaxJobPart, BFMaxJobAssoc, BFMaxJobUserPart int
	// BFMaxJobStart is bf_max_job_start: jobs one backfill pass starts.
	BFMaxJobStart int
	// BFOneResvPerJob is bf_one_resv_per_job: a job reserved in one
	// partition gets no reservation in the others.
	BFOneResvPerJob bool
	// BFJobPartCountReserve is bf_job_part_count_reserve: only this many
	// jobs per partition get reservations (0: all).
	BFJobPartCountReserve int
	// BFRunningJobReserve is bf_running_job_reserve: running jobs are added
	// to the time-slot map too.
	BFRunningJobReserve bool
	// BFMaxJobArrayResv is bf_max_job_array_resv (arrays are not modelled;
	// the setting is kept).
	BFMaxJobArrayResv int
	// BFPlanIgnoresConstraints reproduces Slurm: backfill plans a job on
	// the nodes of its partition without its extra constraint (Slurm's
	// documentation warns it cannot honour them in the plan). sift honours
	// them by default.
	BFPlanIgnoresConstraints bool

	// RequeueDelay is requeue_delay: a requeued job (preempted in REQUEUE
	// mode) may start again only this long (plus a second) later; Slurm's
	// default is the credential lifetime, 120 s.
	RequeueDelay time.Duration
	// PreemptReorderCount is preempt_reorder_count: how many times the
	// select plugin re-sorts preemption candidates to preempt fewer jobs
	// (default 1); PreemptStrictOrder is preempt_strict_order: the job
	// that let the preemptor fit moves to the top instead.
	PreemptReorderCount int
	PreemptStrictOrder  bool

	// BuiltinMaxJobTest is the jobs sched/builtin estimates per pass (its
	// reading of bf_max_job_test, default 50); BuiltinInterval its period
	// (SchedulerParameters interval=, default 30 s).
	BuiltinMaxJobTest int
	BuiltinInterval   time.Duration
}

// DefaultConfig is Slurm's defaults (job_scheduler.c, backfill.c
// _load_config, builtin.c _load_config).
func DefaultConfig() Config {
	return Config{
		DefaultQueueDepth: 100,
		SchedInterval:     60 * time.Second,
		BFInterval:        30 * time.Second,
		BFResolution:      60 * time.Second,
		BFWindow:          24 * time.Hour,
		BFMaxJobTest:      500,
		BFMaxTime:         30 * time.Second,
		BFYieldInterval:   2 * time.Second,
		BFYieldSleep:      500 * time.Millisecond,
		BFMaxJobArrayResv: 20,
		BatchSchedDelay:   3 * time.Second,
		MaxSchedTime:      2 * time.Second,
		BuiltinMaxJobTest: 50,
		BuiltinInterval:   30 * time.Second,
		RequeueDelay:      120 * time.Second,

		PreemptReorderCount: 1,
	}
}

// ParamError is a SchedulerParameters value sift cannot use; Offset is the
// byte offset of the value in the text.
type ParamError struct {
	Key, Value string
	position.Pos
	Msg string
}

// Error names the parameter and the problem.
func (e *ParamError) Error() string {
	return fmt.Sprintf("SchedulerParameters %s=%s: %s", e.Key, e.Value, e.Msg)
}

// builtinInterval is sched/builtin's reading of its period: the number
// after the first "interval=" anywhere in the string (xstrcasestr, so
// bf_interval=3 or sched_interval=60, whichever comes first, counts), as
// atoi reads it; below 1 it is the default.
func builtinInterval(text string, def time.Duration) time.Duration {
	i := strings.Index(strings.ToLower(text), "interval=")
	if i < 0 {
		return def
	}
	rest := text[i+len("interval="):]
	end := 0
	for end < len(rest) && end < 10 && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(rest[:end])
	if n < 1 {
		return 30 * time.Second
	}
	return time.Duration(n) * time.Second
}

// ParseSchedulerParameters reads slurm.conf's SchedulerParameters (comma-
// separated key[=value] options) over base. Options sift does not model are
// ignored, as slurmctld ignores options other components read; a value out
// of Slurm's range is an error (slurmctld logs it and uses the default).
func ParseSchedulerParameters(base Config, text string) (Config, error) {
	c := base
	bfMaxTimeSet, intervalSet := false, false
	off := 0
	for _, opt := range strings.Split(text, ",") {
		start := off
		off += len(opt) + 1
		trimmed := strings.TrimSpace(opt)
		if trimmed == "" {
			continue
		}
		start += strings.Index(opt, trimmed)
		key, val, hasVal := strings.Cut(trimmed, "=")
		key = strings.ToLower(key)
		valOff := start + len(key) + 1
		num := func(min, max int64) (int64, error) {
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || !hasVal {
				return 0, &ParamError{Key: key, Value: val, Pos: position.Pos{Offset: valOff}, Msg: "expected an integer"}
			}
			if n < min || n > max {
				return 0, &ParamError{Key: key, Value: val, Pos: position.Pos{Offset: valOff}, Msg: fmt.Sprintf("out of Slurm's range %d-%d", min, max)}
			}
			return n, nil
		}
		var err error
		var n int64
		switch key {
		case "default_queue_depth":
			n, err = num(0, 1<<31-1)
			c.DefaultQueueDepth = int(n)
		case "partition_job_depth":
			n, err = num(0, 1<<31-1)
			c.PartitionJobDepth = int(n)
		case "sched_max_job_start":
			n, err = num(0, 1<<31-1)
			c.SchedMaxJobStart = int(n)
		case "sched_interval":
			n, err = num(0, 1<<31-1)
			c.SchedInterval = time.Duration(n) * time.Second
		case "assoc_limit_stop":
			c.AssocLimitStop = true
		case "max_sched_time":
			n, err = num(1, 1<<31-1)
			c.MaxSchedTime = time.Duration(n) * time.Second
		case "batch_sched_delay":
			n, err = num(0, 1<<31-1)
			c.BatchSchedDelay = time.Duration(n) * time.Second
		case "requeue_delay":
			n, err = num(0, 1<<31-1)
			c.RequeueDelay = time.Duration(n) * time.Second
		case "preempt_reorder_count":
			n, err = num(0, 1<<31-1)
			c.PreemptReorderCount = int(n)
		case "preempt_strict_order":
			c.PreemptStrictOrder = true
		case "bf_interval":
			n, err = num(1, 10800)
			c.BFInterval = time.Duration(n) * time.Second
			intervalSet = true
		case "bf_resolution":
			n, err = num(1, 3600)
			c.BFResolution = time.Duration(n) * time.Second
		case "bf_window":
			n, err = num(1, 30*24*60)
			c.BFWindow = time.Duration(n) * time.Minute
		case "bf_max_job_test":
			n, err = num(1, 1000000)
			c.BFMaxJobTest = int(n)
			c.BuiltinMaxJobTest = int(n)
		case "bf_node_space_size":
			n, err = num(2, 2*1000000)
			c.BFNodeSpaceSize = int(n)
		case "bf_max_time":
			n, err = num(1, 3600)
			c.BFMaxTime = time.Duration(n) * time.Second
			bfMaxTimeSet = true
		case "bf_yield_interval":
			n, err = num(1, 10000000)
			c.BFYieldInterval = time.Duration(n) * time.Microsecond
		case "bf_yield_sleep":
			n, err = num(1, 10000000)
			c.BFYieldSleep = time.Duration(n) * time.Microsecond
		case "bf_continue":
			c.BFContinue = true
		case "bf_min_prio_reserve":
			n, err = num(1, 1<<32-2)
			c.BFMinPrioReserve = uint32(n)
		case "bf_min_age_reserve":
			n, err = num(0, 30*24*60*60)
			c.BFMinAgeReserve = time.Duration(n) * time.Second
		case "bf_max_job_user":
			n, err = num(0, 1000000)
			c.BFMaxJobUser = int(n)
		case "bf_max_job_part":
			n, err = num(0, 1000000)
			c.BFMaxJobPart = int(n)
		case "bf_max_job_assoc":
			n, err = num(0, 1000000)
			c.BFMaxJobAssoc = int(n)
		case "bf_max_job_user_part":
			n, err = num(0, 1000000)
			c.BFMaxJobUserPart = int(n)
		case "bf_max_job_start":
			n, err = num(0, 10000)
			c.BFMaxJobStart = int(n)
		case "bf_one_resv_per_job":
			c.BFOneResvPerJob = true
		case "bf_job_part_count_reserve":
			n, err = num(0, 100000)
			c.BFJobPartCountReserve = int(n)
		case "bf_running_job_reserve":
			c.BFRunningJobReserve = true
		case "bf_max_job_array_resv":
			n, err = num(0, 1000)
			c.BFMaxJobArrayResv = int(n)
		}
		if err != nil {
			return base, err
		}
	}
	c.BuiltinInterval = builtinInterval(text, base.BuiltinInterval)
	if intervalSet && !bfMaxTimeSet {
		// bf_max_time defaults to bf_interval.
		c.BFMaxTime = c.BFInterval
	}
	return c, nil
}
