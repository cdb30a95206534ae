// Package limits owns Slurm's accounting limits as slurmctld's acct_policy.c
// enforces them: trackable resources (TRES) and their vectors with
// TRESBillingWeights, the association tree (cluster, accounts, users,
// optional partition) with slurmdbd's inheritance of Max limits, QOS with
// their flags, the resolution of which level's limit applies ("first level
// where a limit is defined wins", Grp limits at every level), the checks of
// the three call sites (submit, before and after node selection) with
// Slurm's reason strings chosen in Slurm's order, usage bookkeeping per
// association up to root and per QOS (per user and per account), the
// count of pending jobs accruing age priority under the accrue limits
// (HandleAccrue, RemoveAccrue, Job.AccrueTime) and MinPrioThreshold
// (PrioThreshold), and the readers and writers of `sacctmgr dump` files and `sacctmgr show qos
// --parsable2` output. It imports only the standard library.
package limits
