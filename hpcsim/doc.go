// Package hpcsim owns a small simulator of one published evaluation method:
// the scheduling environment of RLScheduler (D. Zhang, D. Dai, Y. He, F. S.
// Bao, B. Xie, "RLScheduler: an automated HPC batch job scheduler using
// reinforcement learning", SC'20), whose Table V compares schedulers on
// sampled job sequences of SWF traces by mean bounded slowdown. It rebuilds
// that method from its description and its authors' scripts
// (HPCSimPickJobs.py, compare-make-table.py, make_table_script.py in
// DIR-LAB/deep-batch-scheduler), not sift's scheduler: how they load a
// trace, which sequences they sample, how their FCFS and their backfilling
// move time, so sift's own schedulers can be set beside the published
// numbers on the same jobs. It shares no code with package sim.
package hpcsim
