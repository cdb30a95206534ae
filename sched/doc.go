// Package sched owns Slurm's scheduler core: job records, the job queue in
// slurmctld's order (one record per job and partition), the main pass of
// job_scheduler.c _schedule() with its per-partition blocking and Slurm's
// pending reasons, dependencies, and the schedulers behind the seed plugin
// API: builtin (start-time estimates only), backfill (the node-space map of
// time slots with bf_resolution rounding and reservations for the jobs that
// cannot start now) and external (jobs held until a controller releases
// them). It selects nodes through a select plugin (select/linear,
// select/constres) and the candidate chain (select/candidate), and preempts
// running jobs as preempt/partition_prio and preempt/qos say (PreemptMode
// CANCEL, REQUEUE, SUSPEND with GANG, GraceTime, PreemptExemptTime),
// naming the candidates to the select plugin; limits and
// priority plug in through the Limits and Priority interfaces it defines.
// Time is always passed in, never read from the system.
package sched
