// Package bfdriver owns the inputs and recordings of Slurm's standalone
// backfill driver (testsuite/slurm_unit/backfill in Slurm's source, built
// by build.sh here): the case format, its reader and writer, and the seeded
// generator of random cases. siftlab bfrecord runs the driver over them;
// sched's TestSlurmBackfillDriver replays the recordings through sift.
package bfdriver
