// Package constres owns Slurm's select/cons_tres node selection: per-node
// free core bitmaps, allocated memory and GPUs, partition rows for
// OverSubscribe, node choice in the order required nodes, lower weight,
// tightest sufficient consecutive run, lowest index (single-node jobs on the
// first fitting node of lowest weight), memory-per-CPU shrinking, GPU
// checks, block and cyclic core placement, the run-now, test-only and
// will-run modes, preemption, reservations and the job lifecycle.
package constres
