// Package workload owns the jobs a simulation replays and the machine they
// were recorded on: readers for the Standard Workload Format (SWF, plain or
// gzip) with its header, for Slurm accounting (`sacct --parsable2` and
// `sacct --json`), and the synthetic Lublin–Feitelson workload model. It
// turns each source into one Trace of Jobs in submit order; it does not
// schedule them (package sim does).
package workload
