// Command siftlab records what a running Slurm decides, for sift's replay
// tests. It drives the loopback cluster of lab/slurm (start.sh, stop.sh)
// and writes the JSON the select replay reads
// (cmd/sift/testdata/select/slurm-real), extended for scheduling.
//
//	siftlab record -in CASES.json -out REC.json [-frac F -seed S] [-cases A,B] [-events]
//	siftlab compare OLD.json NEW.json
//	siftlab gen -conf FRAGMENT -n N -seed S -out CASES.json
//	siftlab schedgen -files F -n N -seed S -out DIR
//	siftlab resvgen -n N -seed S [-cons] [-port P] -out CASES.json
//	siftlab preemptgen -files F -n N -seed S -out DIR
//	siftlab preemptcases -out DIR
//
// A case file has the recording's shape without the "slurm" answers; a
// recording is also a case file, so old recordings can be recorded again.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Recording is one cluster's answers: the slurm.conf it ran with and, per
// case, the jobs submitted in order with what Slurm did with each.
type Recording struct {
	SlurmVersion string `json:"slurm_version"`
	SlurmCommit  string `json:"slurm_commit"`
	SlurmConf    string `json:"slurm_conf"`
	GresConf     string `json:"gres_conf"`
	// Sacctmgr holds sacctmgr commands, one a line, loaded into slurmdbd
	// before the cases run; empty runs without accounting.
	Sacctmgr string `json:"sacctmgr,omitempty"`
	// LabScript and RecordedBy say how the file was made: the lab script
	// and the exact command line.
	LabScript  string `json:"lab_script,omitempty"`
	RecordedBy string `json:"recorded_by,omitempty"`
	Cases      []Case `json:"cases"`
}

// Case is one sequence of steps run on an empty cluster.
type Case struct {
	Name string `json:"name"`
	// Mode is run-now (submit and read the job), test-only (sbatch
	// --test-only, a will-run answer) or schedule (a whole queue
	// submitted on drained nodes, read after the nodes resume; sched.go).
	// A spec prefixed "test-only:" is a will-run question inside a
	// run-now case.
	Mode string `json:"mode"`
	Jobs []Job  `json:"jobs"`
	// Sdiag, Sprio and Sshare ask for those reports after the last step.
	Sdiag  bool `json:"sdiag,omitempty"`
	Sprio  bool `json:"sprio,omitempty"`
	Sshare bool `json:"sshare,omitempty"`
	// After is what Slurm shows once every step ran.
	After *After `json:"after,omitempty"`
	// Drained (mode schedule) are nodes drained for the case; Wait the
	// seconds waited after the gate's cancel (default 5).
	Drained string  `json:"drained,omitempty"`
	Wait    float64 `json:"wait,omitempty"`
	// Released and Read (mode schedule) are when the gate job was
	// cancelled and when the jobs were read (epochs); a step case
	// recorded with -events has Released, the second its first step
	// began, which its events are timed from.
	Released int64 `json:"released,omitempty"`
	Read     int64 `json:"read,omitempty"`
	// Gate is the job id of the held job every job of a scheduling case
	// depends on, cancelled at Released.
	Gate uint64 `json:"gate,omitempty"`
	// Running (mode schedule) is how many of the first jobs are submitted
	// before the gate, one by one and without its dependency, each read
	// once slurmctld decided on it (Started): the running jobs a queue
	// preempts (preemptgen).
	Running int `json:"running,omitempty"`
	// Started is what Slurm did with each of the first Running jobs at
	// its submission.
	Started []Outcome `json:"started,omitempty"`
	// MainCycles and BackfillCycles (mode schedule) are the main-pass and
	// backfill cycles slurmctld ran from just before the release to the
	// read (sdiag's Total cycles), so a recording shows when a pass the
	// protocol does not expect ran.
	MainCycles     int `json:"main_cycles,omitempty"`
	BackfillCycles int `json:"backfill_cycles,omitempty"`
	// Events (record -events) is what slurmctld's log says happened from
	// the release to the read (mode schedule) or from the first step to
	// the end (step cases): passes, starts, preemptions and each node's
	// epilog (events.go).
	Events []Event `json:"events,omitempty"`
}

// Job is one step: a submission (Spec, Sbatch) or, with Action, a cancel of
// an earlier job ("cancel:N", N counting submissions from 1), a wait
// ("sleep:SECONDS"), a look at every job so far ("snapshot") or an
// advance reservation ("resv:ARGS", the arguments of `scontrol create
// reservation`, recorded in Resv).
type Job struct {
	Spec   string   `json:"spec"`
	Sbatch []string `json:"sbatch,omitempty"`
	Action string   `json:"action,omitempty"`
	Slurm  Outcome  `json:"slurm"`
	// Snapshot is, for the action "snapshot", every job submitted so far
	// as Slurm showed it then.
	Snapshot []Outcome `json:"snapshot,omitempty"`
	// Resv is, for a "resv:" step, the reservation Slurm made.
	Resv *Resv `json:"resv,omitempty"`
}

// Outcome is `scontrol show job -d` for a submitted job, or the answer of
// `sbatch --test-only` (OK, Processors, Nodes or Error).
type Outcome struct {
	State      string `json:"state,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Nodes      string `json:"nodes,omitempty"`
	NumCPUs    int    `json:"num_cpus,omitempty"`
	PerNode    []Node `json:"per_node,omitempty"`
	OK         bool   `json:"ok,omitempty"`
	Processors int    `json:"processors,omitempty"`
	Error      string `json:"error,omitempty"`
	StartEpoch int64  `json:"start_epoch,omitempty"`
	AskedEpoch int64  `json:"asked_epoch,omitempty"`
	// SqueueStart is `squeue --start` for a pending job: expected start
	// (epoch) and the nodes it expects.
	SqueueStart int64  `json:"squeue_start,omitempty"`
	SqueueNodes string `json:"squeue_nodes,omitempty"`
	// Restarts is scontrol's Restarts (requeues, by preemption among
	// others); EndEpoch a started job's EndTime (its limit, or where
	// preemption's grace time moved it).
	Restarts int   `json:"restarts,omitempty"`
	EndEpoch int64 `json:"end_epoch,omitempty"`
	// JobID, Priority, SubmitEpoch and, for a job waiting for its begin
	// time, EligibleEpoch are read in scheduling cases.
	JobID         uint64 `json:"job_id,omitempty"`
	Priority      uint64 `json:"priority,omitempty"`
	SubmitEpoch   int64  `json:"submit_epoch,omitempty"`
	EligibleEpoch int64  `json:"eligible_epoch,omitempty"`
	// StartedBy is the pass that started a running job: Main or Backfill.
	StartedBy string `json:"started_by,omitempty"`
}

// Node is one `Nodes= CPU_IDs= Mem= GRES=` line; Cores are the core
// indexes behind CPU_IDs (CPU id / ThreadsPerCore).
type Node struct {
	Name   string `json:"name"`
	CPUIDs string `json:"cpu_ids"`
	Cores  []int  `json:"cores"`
	MemMB  uint64 `json:"mem_mb"`
	Gres   string `json:"gres"`
}

// After is the state of every submitted job after a case's last step, and
// the reports the case asked for (raw rows, as the commands print them).
type After struct {
	Jobs   []Outcome         `json:"jobs"`
	Sdiag  map[string]string `json:"sdiag,omitempty"`
	Sprio  []string          `json:"sprio,omitempty"`
	Sshare []string          `json:"sshare,omitempty"`
}

func readRecording(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

func writeRecording(path string, r *Recording) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(foldLeaves(b), '\n'), 0o644)
}

// foldLeaves puts every JSON object that holds no array on one line, so a
// recording of hundreds of jobs stays short to read and diff.
func foldLeaves(b []byte) []byte {
	type open struct {
		at   int  // index in out of the opening line
		fold bool // an object with no array inside
	}
	var out []string
	var stack []open
	for _, l := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasSuffix(t, "{") || strings.HasSuffix(t, "["):
			if len(stack) > 0 && strings.HasSuffix(t, "[") {
				stack[len(stack)-1].fold = false
			}
			stack = append(stack, open{at: len(out), fold: strings.HasSuffix(t, "{")})
			out = append(out, l)
		case len(stack) > 0 && (t == "}" || t == "}," || t == "]" || t == "],"):
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !o.fold {
				if len(stack) > 0 {
					stack[len(stack)-1].fold = false
				}
				out = append(out, l)
				continue
			}
			out[o.at] += strings.Join(trimAll(out[o.at+1:]), " ") + t
			out = out[:o.at+1]
		default:
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

func trimAll(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "record":
		err = record(os.Args[2:])
	case "compare":
		err = compare(os.Args[2:])
	case "gen":
		err = gen(os.Args[2:])
	case "priogen":
		err = priogen(os.Args[2:])
	case "schedgen":
		err = schedgen(os.Args[2:])
	case "resvgen":
		err = resvgen(os.Args[2:])
	case "preemptgen":
		err = preemptgen(os.Args[2:])
	case "preemptcases":
		err = preemptcases(os.Args[2:])
	case "priorecord":
		err = priorecord(os.Args[2:])
	case "bfrecord":
		err = bfrecord(os.Args[2:])
	case "squeue2jobs":
		err = squeue2jobs(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "siftlab:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: siftlab record -in CASES.json -out REC.json [-frac F -seed S] | compare OLD.json NEW.json | gen -conf FRAGMENT -n N -seed S -out CASES.json | priogen -n N -files F -seed S -out DIR | priorecord -in SCENARIOS.json -out REC.json | bfrecord -driver BIN -plugins DIR [-in CASES] [-n N -seed S] -out REC | schedgen -files F -n N -seed S -out DIR | resvgen -n N -seed S [-cons] -out CASES.json | preemptgen -files F -n N -seed S -out DIR | preemptcases -out DIR | squeue2jobs -in SQUEUE.json -out JOBS.json")
	os.Exit(2)
}
