package workload

// Unknown marks a numeric field the source does not record (SWF's -1).
const Unknown = -1

// Job is one job of a workload as its source records it. Times are seconds;
// Submit is relative to the trace's start (Trace.StartTime).
type Job struct {
	ID         int64  // job number in the source
	Name       string // the source's own job id when it is more than ID (sacct's array task "5312850_12"), else ""
	Submit     int64  // submit time
	Wait       int64  // wait the recorded system gave, or Unknown
	Run        int64  // run time the job actually used
	Procs      int    // processors requested (allocated when the request is unknown)
	AllocProcs int    // processors allocated, or Unknown
	Nodes      int    // nodes requested, or 0 when the source does not say
	TimeLimit  int64  // requested time (the job's time limit), or Unknown
	MemKB      int64  // memory requested per processor in KB, or Unknown
	Status     Status // how the job ended
	User       string
	Group      string
	Account    string
	Partition  string
	QOS        string
}

// Status is how a job ended in its source.
type Status uint8

// The statuses a source can record; SWF's codes map onto the first four.
const (
	StatusUnknown Status = iota
	StatusCompleted
	StatusFailed
	StatusCancelled
	StatusTimeout
)

// Machine is the system a trace was recorded on, as its header says.
type Machine struct {
	MaxNodes int // 0 when unknown
	MaxProcs int // 0 when unknown
}

// Trace is a workload: its jobs in submit order and the machine it ran on.
type Trace struct {
	Source    string // file name or "synthetic:..."
	StartTime int64  // Unix time of Submit 0, or 0 when unknown
	Machine   Machine
	Jobs      []Job
	// Skipped counts the records of the source that are not in Jobs, by
	// why, so a caller can report them.
	Skipped Skipped
}

// Skipped counts the records a reader leaves out of a Trace.
type Skipped struct {
	// Cancelled jobs: SWF status 5, or sacct CANCELLED jobs that never
	// started. Options.KeepCancelled keeps those that ran.
	Cancelled int
	// Partial records of checkpointed jobs (SWF status 2, 3, 4): the job's
	// summary line is kept instead.
	Partial int
	// Unusable records: no submit time, no run time or no processor count,
	// so nothing can replay them.
	Unusable int
	// Steps are sacct job steps (123.batch, 123.0): the job's own line is
	// kept instead.
	Steps int
}

// Total is how many records were left out.
func (s Skipped) Total() int { return s.Cancelled + s.Partial + s.Unusable + s.Steps }
