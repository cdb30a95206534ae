// Package sim owns trace replay: a deterministic discrete-event simulator
// that submits the jobs of a workload.Trace to a sched.Queue over a
// cluster and its select plugin, ends each job after its recorded run time
// (or at its time limit), cancels jobs, takes nodes down and up, and runs
// slurmctld's scheduler passes exactly when its timers would (Queue.Tick
// at every event and at Queue.NextTick: sched_interval, batch_sched_delay,
// bf_interval when something changed), then measures the schedule: waits,
// bounded slowdowns, utilization, makespan, backfill starts, pending
// reasons and the cost of each pass. The same trace, cluster and options
// always give the same schedule; the wall clock is read only, through an
// injectable function, to time the passes.
package sim
