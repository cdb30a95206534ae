// Package acctpolicy owns the binding of package limits to the scheduler:
// Hook implements sched.Limits with slurmctld's three acct_policy call
// sites (submit, before and after node selection) and its usage updates,
// turning a scheduler job's request and allocation into TRES vectors and
// a limit's reason into the job's pending reason.
package acctpolicy
