package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

// sqNumber is the {"set", "infinite", "number"} object of Slurm's JSON.
type sqNumber struct {
	Set      bool  `json:"set"`
	Infinite bool  `json:"infinite"`
	Number   int64 `json:"number"`
}

// sqJob is the part of one squeue --json job that a sift jobs file needs.
type sqJob struct {
	JobID       uint32   `json:"job_id"`
	Name        string   `json:"name"`
	User        string   `json:"user_name"`
	Account     string   `json:"account"`
	QOS         string   `json:"qos"`
	Partition   string   `json:"partition"`
	Priority    sqNumber `json:"priority"`
	Submit      sqNumber `json:"submit_time"`
	Eligible    sqNumber `json:"eligible_time"`
	Start       sqNumber `json:"start_time"`
	End         sqNumber `json:"end_time"`
	TimeLimit   sqNumber `json:"time_limit"`
	State       []string `json:"job_state"`
	Nodes       string   `json:"nodes"`
	NodeCount   sqNumber `json:"node_count"`
	Tasks       sqNumber `json:"tasks"`
	CPUsPerTask sqNumber `json:"cpus_per_task"`
	Shared      []string `json:"shared"`
	SubmitLine  string   `json:"submit_line"`
}

// squeue2jobs turns squeue --json (or scontrol show job --json) output
// into a sift jobs file: running and pending jobs with their priority,
// submit time, partition, time limit, node and task counts, a running
// job's nodes, start and end. squeue's JSON has no exclusive flag, so a
// job is exclusive when its "shared" says none or its submit line has
// --exclusive. Other requests (memory, GRES, constraints, node lists) are
// not carried over.
func squeue2jobs(args []string) error {
	fs := flag.NewFlagSet("squeue2jobs", flag.ExitOnError)
	in := fs.String("in", "", "squeue --json output")
	out := fs.String("out", "", "sift jobs file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return errors.New("squeue2jobs needs -in and -out")
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	var sq struct {
		Jobs []sqJob `json:"jobs"`
	}
	if err := json.Unmarshal(b, &sq); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var jobs []map[string]any
	for _, j := range sq.Jobs {
		state := ""
		if len(j.State) > 0 {
			state = strings.ToLower(j.State[0])
		}
		if state != "pending" && state != "running" {
			continue
		}
		req := fmt.Sprintf("nodes=%d,ntasks=%d", max(j.NodeCount.Number, 1), max(j.Tasks.Number, 1))
		if j.CPUsPerTask.Set && j.CPUsPerTask.Number > 1 {
			req += fmt.Sprintf(",cpus-per-task=%d", j.CPUsPerTask.Number)
		}
		if slices.Contains(j.Shared, "none") || slices.Contains(strings.Fields(j.SubmitLine), "--exclusive") {
			req += ",exclusive"
		}
		fj := map[string]any{"id": j.JobID, "name": j.Name, "user": j.User, "partition": j.Partition,
			"priority": j.Priority.Number, "submit": j.Submit.Number, "state": state, "request": req}
		if j.Account != "" {
			fj["account"] = j.Account
		}
		if j.QOS != "" {
			fj["qos"] = j.QOS
		}
		if j.TimeLimit.Infinite || !j.TimeLimit.Set {
			fj["time_limit"] = "UNLIMITED"
		} else {
			fj["time_limit"] = fmt.Sprint(j.TimeLimit.Number)
		}
		if state == "running" {
			fj["nodes"], fj["start"], fj["end"] = j.Nodes, j.Start.Number, j.End.Number
		}
		jobs = append(jobs, fj)
	}
	ob, err := json.Marshal(map[string]any{"jobs": jobs})
	if err != nil {
		return err
	}
	return os.WriteFile(*out, append(ob, '\n'), 0o644)
}
