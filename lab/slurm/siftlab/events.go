package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Event is one line of slurmctld's log that says what happened between a
// scheduling case's release and its read, in the order it happened, so
// that a replay can follow slurmctld's order instead of guessing it: a
// killed or requeued victim's nodes come free one by one as their epilogs
// report, and the passes start whatever is free then.
type Event struct {
	// MS is when, in milliseconds after the start of the release's
	// second (Case.Released).
	MS int64 `json:"ms"`
	// Kind is one of
	//   main      a main pass begins (sched: Running job scheduler), over
	//             the whole queue with Mode full
	//   backfill  a backfill cycle begins
	//   alloc     the main pass started Job on Nodes (sched: Allocate)
	//   submit    Job was submitted (step cases)
	//   preempt   Job was killed (Mode kill) or requeued (Mode requeue)
	//             for By
	//   batch     Job's batch script ended (its batch host reported it)
	//   epilog    Job's epilog on node Nodes completed: the node is free
	//   read      the recorder's read of the jobs began (its first
	//             REQUEST_JOB_INFO); the events end there
	Kind  string `json:"kind"`
	Job   uint64 `json:"job,omitempty"`
	By    uint64 `json:"by,omitempty"`
	Mode  string `json:"mode,omitempty"`
	Nodes string `json:"nodes,omitempty"`
}

// The log lines events reads; the epilog, batch and read lines are debug2,
// the main pass's debug (SlurmctldDebug=debug2, set by record -events).
var (
	logStamp   = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$`)
	logEpilog  = regexp.MustCompile(`_slurm_rpc_epilog_complete: JobId=(\d+) Node=(\S+)`)
	logBatch   = regexp.MustCompile(`_slurm_rpc_complete_batch_script: JobId=(\d+) `)
	logAlloc   = regexp.MustCompile(`sched: Allocate JobId=(\d+) NodeList=(\S+)`)
	logPreempt = regexp.MustCompile(`preempted JobId=(\d+) has been (killed|requeued) to reclaim resources for JobId=(\d+)`)
	logSubmit  = regexp.MustCompile(`_slurm_rpc_submit_batch_job: JobId=(\d+) `)
)

// readEvents reads slurmctld's log from byte off on and returns its events,
// timed from the start of second released; with untilRead they end at the
// recorder's first read of the jobs (a scheduling case), else at the end
// of the log (a step case, which reads the jobs after every step).
func (l *lab) readEvents(off, released int64, untilRead bool) []Event {
	b, err := os.ReadFile(l.ctldLog)
	if err != nil || int64(len(b)) < off {
		return nil
	}
	return parseEvents(string(b[off:]), released, time.Local, untilRead)
}

// parseEvents turns slurmctld log lines, stamped in loc, into events.
func parseEvents(log string, released int64, loc *time.Location, untilRead bool) []Event {
	var out []Event
	for _, line := range strings.Split(log, "\n") {
		m := logStamp.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, err := time.ParseInLocation("2006-01-02T15:04:05.000", m[1], loc)
		if err != nil {
			continue
		}
		e := Event{MS: at.UnixMilli() - released*1000}
		msg := m[2]
		num := func(s string) uint64 { n, _ := strconv.ParseUint(s, 10, 64); return n }
		switch {
		case strings.Contains(msg, "Processing RPC: REQUEST_JOB_INFO from"):
			if !untilRead {
				continue
			}
			// Nothing between the release and the read asks for jobs.
			e.Kind = "read"
			return append(out, e)
		case strings.Contains(msg, "sched: Running job scheduler"):
			e.Kind = "main"
			if strings.Contains(msg, "for full queue") {
				e.Mode = "full"
			}
		case strings.HasSuffix(msg, "_attempt_backfill: beginning"):
			e.Kind = "backfill"
		default:
			if f := logEpilog.FindStringSubmatch(msg); f != nil {
				e.Kind, e.Job, e.Nodes = "epilog", num(f[1]), f[2]
			} else if f := logBatch.FindStringSubmatch(msg); f != nil {
				e.Kind, e.Job = "batch", num(f[1])
			} else if f := logAlloc.FindStringSubmatch(msg); f != nil {
				e.Kind, e.Job, e.Nodes = "alloc", num(f[1]), f[2]
			} else if f := logPreempt.FindStringSubmatch(msg); f != nil {
				e.Kind, e.Job, e.By = "preempt", num(f[1]), num(f[3])
				e.Mode = map[string]string{"killed": "kill", "requeued": "requeue"}[f[2]]
			} else if f := logSubmit.FindStringSubmatch(msg); f != nil {
				e.Kind, e.Job = "submit", num(f[1])
			} else {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}
