// Package priority owns job priority as Slurm's priority plugins compute
// it: priority/basic (each new job one below the previous) and
// priority/multifactor (the weighted sum of the age, association,
// fair-share, job size, partition, QOS, site and TRES factors with
// PriorityFlags and nice), the accrue rules that decide when a job's age
// starts to count, the usage each association accumulates (billing TRES
// × seconds × UsageFactor, decayed with PriorityDecayHalfLife every
// PriorityCalcPeriod and reset by PriorityUsageResetPeriod), fair-share by
// Fair Tree or by the classic formula (with DEPTH_OBLIVIOUS), and the rows
// that sprio and sshare print. It reads the association tree and QOS of
// package limits and plugs into package sched through its Priority hook.
// Time is always passed in.
package priority
