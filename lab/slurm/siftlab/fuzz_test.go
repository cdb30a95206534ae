package main

import (
	"testing"
	"time"
)

// FuzzParseSlurmOutput feeds arbitrary text to every reader of Slurm's
// command output; none may panic or run away on a wide range.
func FuzzParseSlurmOutput(f *testing.F) {
	f.Add("JobId=7 JobName=wrap\n   JobState=RUNNING Reason=None\n   StartTime=1764048000\n   NodeList=t1,u1\n   NumCPUs=20\n     Nodes=t1 CPU_IDs=0-3,8 Mem=2000 GRES=\n     Nodes=u[1-2] CPU_IDs=0-1 Mem=0 GRES=gpu:a100:2(IDX:0-1)\n")
	f.Add("sbatch: Job 3 to start at 1764048000 using 16 processors on nodes t1 in partition p\n")
	f.Add("Main schedule statistics (microseconds):\n\tLast cycle:   12\nBackfilling stats\n\tTotal backfilled jobs (since last slurm start): 2\n")
	f.Add("NodeName=t[1-2] CPUs=16 ThreadsPerCore=2\nNodes=t1 CPU_IDs=0-9223372036854775807")
	f.Add(eventsLog)
	f.Fuzz(func(t *testing.T, s string) {
		tpc := nodeThreads(s)
		_ = parseJob(s, tpc)
		_ = parseTestOnly(s, false)
		_ = parseSdiag(s)
		_ = coresOf(s, 2)
		_ = parseEvents(s, 1795686913, time.UTC, true)
		_ = parseEvents(s, 1795686913, time.UTC, false)
	})
}
