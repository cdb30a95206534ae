package sched

import (
	"fmt"
	"testing"
	"time"
)

// TestTimeLimitWithoutOne: which limit a job that gives none runs and is
// planned with. Slurm gives it its first partition's DefaultTime at
// submit, in every partition (_valid_job_part), and none if that one has
// none (NO_VAL); NO_VAL starts with the partition's DefaultTime, else its
// MaxTime, from the main pass (select_nodes), but backfill plans it, and
// starts it, with the partition's MaxTime (_set_backfill_timelimits).
// Each case is one of lab/slurm/sched/hand/time-limits.json, with what the
// running Slurm did.
func TestTimeLimitWithoutOne(t *testing.T) {
	nodes := append(nodesN("n", 1, 2, "a"), nodesN("n", 3, 4, "b")...)
	nodes = append(nodes, nodesN("n", 5, 6, "c")...)
	nodes = append(nodes, nodesN("n", 7, 8, "d", "lim")...)
	parts := map[string]Partition{
		"b":   {MaxTime: 240 * time.Minute, DefaultTime: 30 * time.Minute},
		"c":   {DefaultTime: 30 * time.Minute},
		"lim": {MaxTime: 20 * time.Minute},
	}
	type run struct {
		part, nodes string
		end         int64
	}
	for _, c := range []struct {
		name    string
		running []run
		jobs    []string // by priority, highest first
		want    []string // each job's outcome, its run time or expected start
	}{
		{
			// Slurm: the job of a:b is planned in b with b's MaxTime, so
			// the job behind it waits until 3600+240 minutes.
			name:    "noval-plan-maxtime",
			running: []run{{"a", "n1,n2", 7200}, {"b", "n3,n4", 3600}},
			jobs:    []string{"partition=a+b,nodes=2,exclusive", "partition=b,nodes=1,exclusive,time=120"},
			want:    []string{"PENDING Resources at 3600", "PENDING Priority at 18000"},
		},
		{
			// Slurm: the job runs in d with c's DefaultTime.
			name:    "primary-default-everywhere",
			running: []run{{"c", "n5,n6", 7200}},
			jobs:    []string{"partition=c+d,ntasks=1", "partition=d,nodes=2,exclusive,time=60"},
			want:    []string{"RUNNING n7 for 1800 s", "PENDING Resources at 1800"},
		},
		{
			// Slurm: c's DefaultTime is over lim's MaxTime; the job is
			// planned in c.
			name:    "primary-default-over-maxtime",
			running: []run{{"c", "n5,n6", 7200}},
			jobs:    []string{"partition=c+lim,ntasks=1", "partition=lim,nodes=2,exclusive,time=10"},
			want:    []string{"PENDING PartitionTimeLimit at 7200", "RUNNING n7,n8 for 600 s"},
		},
		{
			// Slurm: backfill starts the job of a:b in b with b's MaxTime,
			// and the next job on n4 waits for it.
			name:    "noval-backfill-start-maxtime",
			running: []run{{"a", "n1,n2", 7200}, {"b", "n3", 3600}},
			jobs: []string{"partition=b,nodes=1,exclusive,exclude=n4,time=60", "partition=a+b,ntasks=1",
				"partition=b,nodes=1,exclusive,exclude=n3,time=60"},
			want: []string{"PENDING Resources at 3600", "RUNNING n4 for 14400 s", "PENDING Priority at 14400"},
		},
		{
			// One partition: its DefaultTime.
			name: "noval-single-partition-default",
			jobs: []string{"partition=b,nodes=2,exclusive", "partition=b,nodes=2,exclusive,time=60"},
			want: []string{"RUNNING n3,n4 for 1800 s", "PENDING Resources at 1800"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nodes, Backfill{}, DefaultConfig(), parts, true)
			for i, r := range c.running {
				f.running(uint32(100+i), r.part, r.nodes, 0, r.end)
			}
			var jobs []*Job
			for i, spec := range c.jobs {
				jobs = append(jobs, f.submit(uint32(i+1), uint32(1000-10*i), spec))
			}
			f.pass(0)
			for i, j := range jobs {
				got := f.outcome(j)
				if j.State == Running {
					got += fmt.Sprintf(" for %d s", j.End-j.Start)
				} else {
					got += fmt.Sprintf(" at %d", j.Start)
				}
				if got != c.want[i] {
					t.Errorf("job %d (%s): %s, want %s", j.ID, c.jobs[i], got, c.want[i])
				}
			}
		})
	}
}
