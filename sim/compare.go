package sim

import (
	"errors"
	"math"
	"math/bits"
	"slices"

	"github.com/nodesift/sift/workload"
)

// ErrNoRecorded is a trace that records no job's wait, so a replay has
// nothing to be compared with.
var ErrNoRecorded = errors.New("the trace records no start time (wait) for any job")

// WaitStats are the waits of a set of jobs, in seconds.
type WaitStats struct {
	Mean   float64 `json:"mean_wait_s"`
	Median float64 `json:"median_wait_s"`
	P95    float64 `json:"p95_wait_s"`
	Max    float64 `json:"max_wait_s"`
}

// ClassComparison is one class of jobs (by size or by partition) in both
// schedules.
type ClassComparison struct {
	Class    string    `json:"class"`
	Jobs     int       `json:"jobs"`
	Sim      WaitStats `json:"sim"`
	Recorded WaitStats `json:"recorded"`
}

// Comparison sets a replay beside the schedule the trace recorded (its
// jobs' own submit and start times), over the jobs that started in both.
type Comparison struct {
	// Jobs started in both schedules; the statistics count only them.
	Jobs int `json:"jobs"`
	// Sim and Recorded are the waits of all those jobs.
	Sim      WaitStats `json:"sim"`
	Recorded WaitStats `json:"recorded"`
	// SimUtilization and RecordedUtilization are the CPU-seconds the jobs
	// held (the CPUs the replay gave them; the CPUs the trace allocated)
	// over the partition's CPUs times each schedule's makespan (first
	// submission to last end).
	SimUtilization      float64 `json:"sim_utilization"`
	RecordedUtilization float64 `json:"recorded_utilization"`
	SimMakespan         int64   `json:"sim_makespan_s"`
	RecordedMakespan    int64   `json:"recorded_makespan_s"`
	// Earlier, Same and Later count the jobs the replay started before, at
	// the same second as, or after the recorded start.
	Earlier int `json:"started_earlier"`
	Same    int `json:"started_same_second"`
	Later   int `json:"started_later"`
	// BySize splits the jobs by the size the trace gave them: less than a
	// node, one node, 2-4, 5-16 and more than 16 nodes. ByPartition splits
	// them by the trace's partition column when it has one.
	BySize      []ClassComparison `json:"by_size"`
	ByPartition []ClassComparison `json:"by_partition,omitempty"`
	// IdleWaits counts the jobs that waited at least IdleWaitMin seconds in
	// the recorded schedule although the trace's own jobs, as recorded,
	// left enough of the partition's CPUs idle for them during the whole
	// wait: waits that the trace's load cannot explain (jobs outside the
	// trace, holds, dependencies, reservations, nodes out of service).
	// IdleWaitSeconds is the sum of their recorded waits. Both count only
	// the compared jobs.
	IdleWaits       int   `json:"idle_waits"`
	IdleWaitSeconds int64 `json:"idle_wait_s"`
}

// IdleWaitMin is the shortest recorded wait IdleWaits looks at: a minute,
// longer than slurmctld's scheduling delays (batch_sched_delay,
// sched_min_interval, a backfill cycle).
const IdleWaitMin = 60

// sizeClasses bound the size classes by node count; a job smaller than
// one node (fewer processors than a node's CPUs) is classed apart.
var sizeClasses = []struct {
	name string
	max  int
}{{"1 node", 1}, {"2-4 nodes", 4}, {"5-16 nodes", 16}, {">16 nodes", math.MaxInt}}

// subNode is the class of jobs smaller than one node.
const subNode = "<1 node"

// Compare sets res, a replay of tr, beside the schedule tr records.
// cpusPerNode sizes the "<1 node" class and the node count of a job the
// trace gives none.
func Compare(tr *workload.Trace, res *Result, cpusPerNode int) (*Comparison, error) {
	c := &Comparison{}
	type both struct{ sim, rec float64 }
	var all []both
	sizes := map[string][]both{}
	parts := map[string][]both{}
	var simCPUSec, recCPUSec float64
	simFirst, recFirst := int64(math.MaxInt64), int64(math.MaxInt64)
	simLast, recLast := int64(math.MinInt64), int64(math.MinInt64)
	for i := range res.Jobs {
		rec, tj := &res.Jobs[i], &tr.Jobs[i]
		if rec.Start < 0 || tj.Wait < 0 {
			continue
		}
		w := both{float64(rec.Wait), float64(tj.Wait)}
		all = append(all, w)
		recStart := tj.Submit + tj.Wait
		switch {
		case rec.Start < recStart:
			c.Earlier++
		case rec.Start == recStart:
			c.Same++
		default:
			c.Later++
		}
		size := sizeOf(tj, cpusPerNode)
		sizes[size] = append(sizes[size], w)
		if tj.Partition != "" {
			parts[tj.Partition] = append(parts[tj.Partition], w)
		}
		simCPUSec += float64(rec.End-rec.Start) * float64(rec.CPUs)
		recCPUSec += float64(max(tj.Run, 0)) * float64(recordedCPUs(tj))
		simFirst, recFirst = min(simFirst, rec.Submit), min(recFirst, tj.Submit)
		simLast, recLast = max(simLast, rec.End), max(recLast, recStart+max(tj.Run, 0))
	}
	if len(all) == 0 {
		return nil, ErrNoRecorded
	}
	c.Jobs = len(all)
	split := func(ws []both) (WaitStats, WaitStats) {
		s, r := make([]float64, len(ws)), make([]float64, len(ws))
		for i, w := range ws {
			s[i], r[i] = w.sim, w.rec
		}
		return waitStats(s), waitStats(r)
	}
	c.Sim, c.Recorded = split(all)
	for _, name := range append([]string{subNode}, classNames()...) {
		if ws := sizes[name]; len(ws) > 0 {
			cc := ClassComparison{Class: name, Jobs: len(ws)}
			cc.Sim, cc.Recorded = split(ws)
			c.BySize = append(c.BySize, cc)
		}
	}
	names := make([]string, 0, len(parts))
	for p := range parts {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		cc := ClassComparison{Class: p, Jobs: len(parts[p])}
		cc.Sim, cc.Recorded = split(parts[p])
		c.ByPartition = append(c.ByPartition, cc)
	}
	c.SimMakespan, c.RecordedMakespan = simLast-simFirst, recLast-recFirst
	if cpus := float64(res.Summary.CPUs); cpus > 0 {
		if c.SimMakespan > 0 {
			c.SimUtilization = simCPUSec / (cpus * float64(c.SimMakespan))
		}
		if c.RecordedMakespan > 0 {
			c.RecordedUtilization = recCPUSec / (cpus * float64(c.RecordedMakespan))
		}
	}
	c.IdleWaits, c.IdleWaitSeconds = idleWaits(tr, res.Summary.CPUs, func(i int) bool { return res.Jobs[i].Start >= 0 })
	return c, nil
}

func classNames() []string {
	out := make([]string, len(sizeClasses))
	for i, s := range sizeClasses {
		out[i] = s.name
	}
	return out
}

// sizeOf is a trace job's size class.
func sizeOf(tj *workload.Job, cpusPerNode int) string {
	procs := recordedCPUs(tj)
	nodes := tj.Nodes
	if nodes <= 0 {
		nodes = (procs + cpusPerNode - 1) / max(cpusPerNode, 1)
	}
	if nodes <= 1 && procs < cpusPerNode {
		return subNode
	}
	for _, s := range sizeClasses {
		if nodes <= s.max {
			return s.name
		}
	}
	return sizeClasses[len(sizeClasses)-1].name
}

// recordedCPUs is the processors the trace gave a job: allocated when it
// says, else requested.
func recordedCPUs(tj *workload.Job) int {
	if tj.AllocProcs > 0 {
		return tj.AllocProcs
	}
	return max(tj.Procs, 0)
}

func waitStats(ws []float64) WaitStats {
	slices.Sort(ws)
	return WaitStats{Mean: mean(ws), Median: quantile(ws, 0.5), P95: quantile(ws, 0.95), Max: ws[len(ws)-1]}
}

// idleWaits counts the recorded waits of at least IdleWaitMin, of the jobs
// counted says, during which the trace's recorded jobs never held more
// than cpus minus the waiting job's CPUs: the busy CPUs are a step function of the recorded starts and
// ends, and a sparse table answers the largest value over each wait.
func idleWaits(tr *workload.Trace, cpus int, counted func(int) bool) (int, int64) {
	type change struct {
		t int64
		d int
	}
	var ch []change
	for i := range tr.Jobs {
		tj := &tr.Jobs[i]
		if tj.Wait < 0 {
			continue
		}
		s := tj.Submit + tj.Wait
		ch = append(ch, change{s, recordedCPUs(tj)}, change{s + max(tj.Run, 0), -recordedCPUs(tj)})
	}
	// Ends before starts at the same second: a freed CPU is free at once.
	slices.SortFunc(ch, func(a, b change) int {
		if a.t != b.t {
			return cmpInt(a.t, b.t)
		}
		return a.d - b.d
	})
	// times[k] is when the k-th step begins, busy[k] its level.
	var times []int64
	var busy []int
	level := 0
	for k, c := range ch {
		level += c.d
		if k+1 < len(ch) && ch[k+1].t == c.t {
			continue
		}
		times = append(times, c.t)
		busy = append(busy, level)
	}
	if len(times) == 0 {
		return 0, 0
	}
	table := [][]int{busy}
	for w := 1; 2*w <= len(busy); w *= 2 {
		prev := table[len(table)-1]
		next := make([]int, len(prev)-w)
		for k := range next {
			next[k] = max(prev[k], prev[k+w])
		}
		table = append(table, next)
	}
	rangeMax := func(lo, hi int) int { // over steps lo..hi inclusive
		k := bits.Len(uint(hi-lo+1)) - 1
		return max(table[k][lo], table[k][hi-(1<<k)+1])
	}
	n, total := 0, int64(0)
	for i := range tr.Jobs {
		tj := &tr.Jobs[i]
		if tj.Wait < IdleWaitMin || !counted(i) {
			continue
		}
		start := tj.Submit + tj.Wait
		// The steps in force during [Submit, start): the one at Submit and
		// every one that begins before start.
		lo := max(sortSearch(times, tj.Submit+1)-1, 0)
		hi := sortSearch(times, start) - 1
		if hi < lo {
			hi = lo
		}
		if rangeMax(lo, hi)+recordedCPUs(tj) <= cpus {
			n++
			total += tj.Wait
		}
	}
	return n, total
}

// sortSearch is the index of the first time at or after t.
func sortSearch(times []int64, t int64) int {
	k, _ := slices.BinarySearch(times, t)
	return k
}
