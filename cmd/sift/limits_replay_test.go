package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/limits/acctpolicy"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
)

// labRecording is the part of a lab recording (lab/slurm/siftlab) an
// accounting replay reads.
type labRecording struct {
	SlurmConf string `json:"slurm_conf"`
	Sacctmgr  string `json:"sacctmgr"`
	Cases     []struct {
		Name string `json:"name"`
		Jobs []struct {
			Spec   string     `json:"spec"`
			Action string     `json:"action"`
			Slurm  labOutcome `json:"slurm"`
		} `json:"jobs"`
		After *struct {
			Jobs []labOutcome `json:"jobs"`
		} `json:"after"`
	} `json:"cases"`
}

type labOutcome struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
	Error  string `json:"error"`
}

// TestAccountingRecordingsReplay replays every accounting recording of
// the lab (a recording with sacctmgr commands: the smoke accounting case,
// and the limit cases of lab/slurm/limits once recorded) through sched
// with the limits hook: each job's state and reason after its submission,
// refusals at submit, and the states after the last step must be
// Slurm's.
func TestAccountingRecordingsReplay(t *testing.T) {
	paths, _ := filepath.Glob("../../lab/slurm/smoke/recorded/smoke-accounting.json")
	more, _ := filepath.Glob("../../lab/slurm/limits/recorded/*.json")
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Skip("no accounting recording present")
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rec labRecording
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if rec.Sacctmgr == "" {
			continue
		}
		for ci, c := range rec.Cases {
			t.Run(filepath.Base(path)+"/"+c.Name, func(t *testing.T) {
				q, defPart, err := replayQueue(rec.SlurmConf, rec.Sacctmgr)
				if err != nil {
					t.Fatal(err)
				}
				now := int64(1_800_000_000)
				var ids []uint32
				for si, step := range c.Jobs {
					switch {
					case strings.HasPrefix(step.Action, "cancel:"):
						n, _ := strconv.Atoi(strings.TrimPrefix(step.Action, "cancel:"))
						if n >= 1 && n <= len(ids) && ids[n-1] != 0 {
							if j, ok := q.Job(ids[n-1]); ok && !j.State.Finished() {
								if err := q.Finish(ids[n-1], sched.Cancelled, now); err != nil {
									t.Fatal(err)
								}
							}
						}
						if _, err := q.Schedule(now); err != nil {
							t.Fatal(err)
						}
						continue
					case strings.HasPrefix(step.Action, "sleep:"):
						s, _ := strconv.ParseFloat(strings.TrimPrefix(step.Action, "sleep:"), 64)
						now += int64(s + 0.5)
						if _, err := q.Schedule(now); err != nil {
							t.Fatal(err)
						}
						continue
					}
					id := uint32(ci*1000 + si + 1)
					j, err := replayJob(id, step.Spec, defPart)
					if err != nil {
						t.Fatalf("step %d: %v", si+1, err)
					}
					err = q.Submit(j, false, now)
					want := step.Slurm
					if err != nil {
						ids = append(ids, 0)
						if want.State != "REJECTED" {
							t.Errorf("step %d (%s): sift refused it (%v), Slurm: %s %s", si+1, step.Spec, err, want.State, want.Reason)
						}
						continue
					}
					ids = append(ids, id)
					if want.State == "REJECTED" {
						t.Errorf("step %d (%s): sift accepted it, Slurm refused it: %s", si+1, step.Spec, want.Error)
						continue
					}
					if _, err := q.Schedule(now); err != nil {
						t.Fatal(err)
					}
					if got := j.State.String() + " " + j.ReasonText(); got != want.State+" "+want.Reason {
						t.Errorf("step %d (%s): sift %s, Slurm %s %s", si+1, step.Spec, got, want.State, want.Reason)
					}
				}
				if c.After == nil {
					return
				}
				k := 0
				for _, id := range ids {
					if id == 0 {
						continue
					}
					if k >= len(c.After.Jobs) {
						break
					}
					want := c.After.Jobs[k]
					k++
					j, _ := q.Job(id)
					if got := j.State.String() + " " + j.ReasonText(); got != want.State+" "+want.Reason {
						t.Errorf("after the last step, job %d: sift %s, Slurm %s %s", k, got, want.State, want.Reason)
					}
				}
			})
		}
	}
}

// replayQueue is the recording's cluster with its accounting, scheduled
// with backfill and cons_tres as `sift schedule --limits` does.
func replayQueue(conf, sacctmgr string) (*sched.Queue, string, error) {
	inv, _, err := inventory.ParseSlurmConf("slurm.conf", []byte(conf), func(string) ([]byte, error) {
		return nil, fmt.Errorf("no includes in a recording")
	})
	if err != nil {
		return nil, "", err
	}
	snap, err := index.Build(inv.Nodes)
	if err != nil {
		return nil, "", err
	}
	cl := job.NewCluster(snap)
	if err := configurePartitions(cl, inv.Partitions); err != nil {
		return nil, "", err
	}
	p, err := limits.ParseSacctmgrCommands([]byte(sacctmgr), "lab", map[string]string{"@USER@": "labuser"})
	if err != nil {
		return nil, "", err
	}
	enforce := "associations,limits,qos"
	for _, line := range strings.Split(conf, "\n") {
		if v, ok := strings.CutPrefix(line, "AccountingStorageEnforce="); ok {
			enforce = v
		}
	}
	if p.Enforce, err = limits.ParseEnforce(enforce); err != nil {
		return nil, "", err
	}
	parts := schedPartitions(inv.Partitions)
	h, err := acctpolicy.New(p, parts, partitionConf(inv.Partitions))
	if err != nil {
		return nil, "", err
	}
	return sched.NewQueue(sched.Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{TrackMemory: true}),
		Scheduler: sched.Backfill{}, Config: sched.DefaultConfig(), Partitions: parts, Limits: h}), defaultPartition(inv.Partitions), nil
}

// replayJob reads a lab spec (sbatch long options joined by commas): the
// account, qos and partition go to the job, the rest is a `sift select
// --job` request.
func replayJob(id uint32, spec, defPart string) (*sched.Job, error) {
	j := &sched.Job{ID: id, User: "labuser"}
	var rest []string
	for _, item := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(item, "=")
		switch k {
		case "account":
			j.Account = v
		case "qos":
			j.QOS = v
		case "partition":
			j.Partitions = []string{v}
		default:
			rest = append(rest, item)
		}
	}
	req, err := job.ParseSpec(strings.Join(rest, ","))
	if err != nil {
		return nil, err
	}
	j.Request, j.TimeLimit = req, req.TimeLimit
	if len(j.Partitions) == 0 {
		j.Partitions = []string{defPart}
	}
	return j, nil
}
