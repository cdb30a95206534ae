// Package linear owns Slurm's select/linear node selection: whole nodes
// chosen by the consecutive-set best fit (required nodes first, the tightest
// sufficient run of consecutive node ids, otherwise the largest runs first,
// lowest id inside a run), the heterogeneous-CPU shortcut, lighter node
// weights first, the run-now, test-only and will-run modes, preemption,
// reservations, and the per-node job counts and memory of running jobs.
package linear
