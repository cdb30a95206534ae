package hpcsim

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/nodesift/sift/workload"
)

// Job is one job as the method loads it from an SWF line.
type Job struct {
	ID     int64
	Submit int64
	// Run is field 4; -1 becomes 10 (their loader's rule).
	Run int64
	// Request is the estimate: field 9, or the run time as written when
	// field 9 is -1.
	Request int64
	// Procs is max(field 5, field 8).
	Procs int
}

// Workload is a trace as the method sees it: the jobs it keeps, in job
// number order, and the machine from the header.
type Workload struct {
	Jobs []Job
	// Nodes is the header's MaxNodes; ProcsPerNode is MaxProcs/MaxNodes
	// (1 when MaxProcs is 0). Every job gets whole nodes.
	Nodes        int
	ProcsPerNode float64
}

// Load reads an SWF log (plain or gzip) the way the method's loader does:
// every job line, cancelled ones too; a run time of -1 becomes 10 s; jobs
// whose run time is then 0 are dropped; the size is the larger of the
// allocated and requested processors; the estimate is the requested time,
// or the run time when the log has none.
func Load(r io.Reader, name string) (*Workload, error) {
	w := &Workload{}
	tr, err := workload.ScanSWF(r, name, func(f *workload.SWFRecord) error {
		j := Job{ID: f[0], Submit: f[1], Run: f[3], Request: f[8], Procs: int(max(f[4], f[7]))}
		if j.Request == -1 {
			j.Request = j.Run
		}
		if j.Run < 0 {
			j.Run = 10
		}
		if j.Run > 0 {
			w.Jobs = append(w.Jobs, j)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(w.Jobs, func(a, b Job) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	w.Nodes = tr.Machine.MaxNodes
	procs := tr.Machine.MaxProcs
	if procs == 0 {
		procs = w.Nodes
	}
	if w.Nodes <= 0 {
		return nil, fmt.Errorf("%s: the header has no MaxNodes, which the method needs", name)
	}
	w.ProcsPerNode = float64(procs) / float64(w.Nodes)
	return w, nil
}

// Starts returns the first job of each of count sequences of seqLen jobs
// drawn from the first slice jobs (the whole trace when slice is 0), as
// the method draws them: numpy's RandomState seeded by gym's
// seeding.np_random(seed), one randint(seqLen, slice−seqLen−1) per
// sequence.
func Starts(seed uint64, count, seqLen, slice int) ([]int, error) {
	if slice-seqLen-1 <= seqLen {
		return nil, fmt.Errorf("%d jobs are too few for sequences of %d", slice, seqLen)
	}
	m := gymSeeded(seed)
	starts := make([]int, count)
	for i := range starts {
		starts[i] = m.intn(seqLen, slice-seqLen-1)
	}
	return starts, nil
}

// Result is one sequence's outcome.
type Result struct {
	Start    int     // index of the sequence's first job in Workload.Jobs
	Jobs     int     // jobs scheduled
	MeanBSLD float64 // mean of max(1, (wait+run)/max(run, 10))
	MeanWait float64 // seconds
	// Backfilled counts jobs started ahead of a blocked head job.
	Backfilled int
}

// Simulate schedules jobs [start, start+n) of w in FCFS order on w.Nodes
// whole nodes, with the method's backfilling when backfill is true, and
// returns the sequence's scores.
//
// The method, as its environment runs it: time starts at the first job's
// submit with an empty machine; the queue is kept in submit order; the
// head job starts as soon as its nodes are free; while it waits, time
// moves one event at a time (the next arrival if it comes no later than
// the next end, else that end, one job at a time), and a job runs for its
// real run time (never killed at its estimate). With backfill, when the
// head job blocks, its shadow time is computed once, from the running
// jobs' estimates (start + Request) in order until enough processors are
// free; then at every event any queued job that fits now and whose
// estimate ends strictly before that shadow time starts (in submit order).
// Unlike EASY, no job may run past the shadow time on nodes the head job
// does not need, and the shadow time is not recomputed as jobs end early.
func Simulate(w *Workload, start, n int, backfill bool) (Result, error) {
	if start < 0 || n <= 0 || start+n > len(w.Jobs) {
		return Result{}, fmt.Errorf("sequence [%d, %d) outside the %d jobs", start, start+n, len(w.Jobs))
	}
	s := &state{w: w, jobs: w.Jobs[start : start+n], free: w.Nodes}
	s.sched = make([]int64, n)
	s.need = make([]int, n)
	for i, j := range s.jobs {
		s.sched[i] = -1
		s.need[i] = int(math.Ceil(float64(j.Procs) / w.ProcsPerNode))
		if s.need[i] > w.Nodes {
			return Result{}, fmt.Errorf("job %d needs %d nodes of %d", j.ID, s.need[i], w.Nodes)
		}
	}
	s.now = s.jobs[0].Submit
	s.queue = []int{0}
	s.next = 1
	for {
		slices.SortStableFunc(s.queue, s.bySubmit)
		head := s.queue[0]
		if s.need[head] > s.free {
			if backfill {
				s.backfillUntilFits(head)
			} else {
				s.waitUntilFits(head)
			}
		}
		s.start(head)
		s.dequeue(head)
		if !s.moveToNextJob() {
			break
		}
	}
	r := Result{Start: start, Jobs: n, Backfilled: s.backfilled}
	for i, j := range s.jobs {
		wait := s.sched[i] - j.Submit
		r.MeanWait += float64(wait)
		r.MeanBSLD += max(1, float64(wait+j.Run)/float64(max(j.Run, 10)))
	}
	r.MeanBSLD /= float64(n)
	r.MeanWait /= float64(n)
	return r, nil
}

type state struct {
	w          *Workload
	jobs       []Job
	sched      []int64 // start time, -1 before
	need       []int   // whole nodes
	free       int
	now        int64
	queue      []int // indices into jobs, as the method's list
	running    []int
	next       int // next job to arrive
	backfilled int
}

func (s *state) bySubmit(a, b int) int { return cmpInt(s.jobs[a].Submit, s.jobs[b].Submit) }
func (s *state) byEnd(a, b int) int {
	return cmpInt(s.sched[a]+s.jobs[a].Run, s.sched[b]+s.jobs[b].Run)
}
func (s *state) byEstimatedEnd(a, b int) int {
	return cmpInt(s.sched[a]+s.jobs[a].Request, s.sched[b]+s.jobs[b].Request)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *state) start(j int) {
	s.sched[j] = s.now
	s.free -= s.need[j]
	s.running = append(s.running, j)
}

func (s *state) dequeue(j int) {
	if i := slices.Index(s.queue, j); i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	}
}

// step moves time to the next event while a head job waits: the next
// arrival if it comes no later than the next end, else the next end.
func (s *state) step() {
	slices.SortStableFunc(s.running, s.byEnd)
	first := s.running[0]
	end := s.sched[first] + s.jobs[first].Run
	if s.next < len(s.jobs) && s.jobs[s.next].Submit <= end {
		s.now = max(s.now, s.jobs[s.next].Submit)
		s.queue = append(s.queue, s.next)
		s.next++
		return
	}
	s.now = max(s.now, end)
	s.free += s.need[first]
	s.running = s.running[1:]
}

func (s *state) waitUntilFits(head int) {
	for s.need[head] > s.free {
		s.step()
	}
}

func (s *state) backfillUntilFits(head int) {
	shadow := s.now
	slices.SortStableFunc(s.running, s.byEstimatedEnd)
	procs := float64(s.free) * s.w.ProcsPerNode
	for _, r := range s.running {
		procs += float64(s.need[r]) * s.w.ProcsPerNode
		shadow = s.sched[r] + s.jobs[r].Request
		if procs >= float64(s.jobs[head].Procs) {
			break
		}
	}
	for s.need[head] > s.free {
		slices.SortStableFunc(s.queue, s.bySubmit)
		for _, j := range slices.Clone(s.queue) {
			if s.now+s.jobs[j].Request < shadow && s.need[j] <= s.free {
				s.start(j)
				s.dequeue(j)
				s.backfilled++
			}
		}
		s.step()
	}
}

// moveToNextJob brings the next job into an empty queue, letting jobs end
// until it arrives; false when the sequence is done.
func (s *state) moveToNextJob() bool {
	if len(s.queue) > 0 {
		return true
	}
	if s.next >= len(s.jobs) {
		return false
	}
	for {
		end := int64(math.MaxInt64)
		if len(s.running) > 0 {
			slices.SortStableFunc(s.running, s.byEnd)
			end = s.sched[s.running[0]] + s.jobs[s.running[0]].Run
		}
		if s.jobs[s.next].Submit <= end {
			s.now = max(s.now, s.jobs[s.next].Submit)
			s.queue = append(s.queue, s.next)
			s.next++
			return true
		}
		s.now = max(s.now, end)
		s.free += s.need[s.running[0]]
		s.running = s.running[1:]
	}
}

// Method is the sampling of the evaluation: Sequences sequences of Length
// jobs from the first Slice jobs, drawn with Seed. RLScheduler's Table V
// uses seed 1, 10 sequences of 1,024 jobs, and the first 10,000 jobs for
// SDSC-SP2 and HPC2N (make_table_script.py).
type Method struct {
	Seed      uint64
	Sequences int
	Length    int
	Slice     int
}

// TableVMethod is the method of RLScheduler's Table V for SDSC-SP2 and HPC2N.
var TableVMethod = Method{Seed: 1, Sequences: 10, Length: 1024, Slice: 10000}

// Row is a trace's line of the table: the mean over the sequences of each
// sequence's mean bounded slowdown, without and with their backfilling,
// and each sequence's results.
type Row struct {
	Starts      []int
	FCFS        float64
	Backfill    float64
	PerFCFS     []Result
	PerBackfill []Result
}

// Table runs FCFS without and with the method's backfilling on every
// sampled sequence of w.
func Table(w *Workload, m Method) (Row, error) {
	slice := m.Slice
	if slice == 0 || slice > len(w.Jobs) {
		slice = len(w.Jobs)
	}
	starts, err := Starts(m.Seed, m.Sequences, m.Length, slice)
	if err != nil {
		return Row{}, err
	}
	row := Row{Starts: starts}
	for _, s := range starts {
		a, err := Simulate(w, s, m.Length, false)
		if err != nil {
			return Row{}, err
		}
		b, err := Simulate(w, s, m.Length, true)
		if err != nil {
			return Row{}, err
		}
		row.PerFCFS = append(row.PerFCFS, a)
		row.PerBackfill = append(row.PerBackfill, b)
		row.FCFS += a.MeanBSLD / float64(len(starts))
		row.Backfill += b.MeanBSLD / float64(len(starts))
	}
	return row, nil
}
