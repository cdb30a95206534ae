package main

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/nodesift/sift/hpcsim"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/sim"
	"github.com/nodesift/sift/workload"
)

// slurmReplay replays each sampled sequence through package sim, sift's
// replay of Slurm: policy (sched/backfill, or the main pass alone for
// sim.FIFO) with cfg (tablev passes Slurm's defaults),
// on the method's machine (select/linear, whole nodes), every job running
// its recorded time as the method's jobs do (sim.OverrunRun), scored as
// the method scores. Sequences run in parallel, one a core; each result
// depends only on its sequence.
func slurmReplay(w *hpcsim.Workload, starts []int, length int, policy sim.Policy, cfg sched.Config) ([]hpcsim.Result, error) {
	out := make([]hpcsim.Result, len(starts))
	errs := make([]error, len(starts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = slurmSequence(w, starts[i], length, policy, cfg)
			}
		}()
	}
	for i := range starts {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// slurmSequence replays one sequence. A job's estimate is its time limit
// (none when the method's estimate is not positive); its size is the
// method's, at least one processor.
func slurmSequence(w *hpcsim.Workload, start, length int, policy sim.Policy, cfg sched.Config) (hpcsim.Result, error) {
	seq := w.Jobs[start : start+length]
	tr := &workload.Trace{
		Source:  fmt.Sprintf("sequence from job index %d", start),
		Machine: workload.Machine{MaxNodes: w.Nodes, MaxProcs: int(math.Round(float64(w.Nodes) * w.ProcsPerNode))},
	}
	base := seq[0].Submit
	for _, j := range seq {
		limit := j.Request
		if limit <= 0 {
			limit = workload.Unknown
		}
		procs := max(j.Procs, 1)
		tr.Jobs = append(tr.Jobs, workload.Job{
			ID: j.ID, Submit: j.Submit - base, Wait: workload.Unknown, Run: j.Run,
			Procs: procs, AllocProcs: workload.Unknown, Nodes: int(math.Ceil(float64(procs) / w.ProcsPerNode)),
			TimeLimit: limit, MemKB: workload.Unknown, Status: workload.StatusCompleted,
		})
	}
	nodes, err := sim.HeaderNodes(tr.Machine, false)
	if err != nil {
		return hpcsim.Result{}, err
	}
	cl, plug, err := sim.NewCluster(nodes, sim.WholeNode)
	if err != nil {
		return hpcsim.Result{}, err
	}
	res, err := sim.Run(tr, sim.Options{Cluster: cl, Plugin: plug, Partition: sim.HeaderPartition,
		Policy: policy, Config: cfg, Allocation: sim.WholeNode, Overrun: sim.OverrunRun})
	if err != nil {
		return hpcsim.Result{}, err
	}
	r := hpcsim.Result{Start: start, Jobs: length, Backfilled: res.Summary.Backfilled}
	for _, rec := range res.Jobs {
		if rec.Start < 0 {
			return hpcsim.Result{}, fmt.Errorf("sequence at %d: job %d never started", start, rec.ID)
		}
		wait := rec.Start - rec.Submit
		r.MeanWait += float64(wait) / float64(length)
		r.MeanBSLD += max(1, float64(wait+rec.Run)/float64(max(rec.Run, 10))) / float64(length)
	}
	return r, nil
}
