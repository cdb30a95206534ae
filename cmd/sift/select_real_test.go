package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nodesift/sift/hostlist"
)

// realRecord is one cluster's answers recorded from a running Slurm
// (testdata/select/slurm-real): the slurm.conf it ran with and, per case,
// the jobs submitted in order with what Slurm did with each.
type realRecord struct {
	SlurmVersion string `json:"slurm_version"`
	SlurmCommit  string `json:"slurm_commit"`
	SlurmConf    string `json:"slurm_conf"`
	GresConf     string `json:"gres_conf"`
	// LabScript and RecordedBy name how lab/slurm recorded the file; files
	// from before the lab was committed have neither.
	LabScript  string     `json:"lab_script"`
	RecordedBy string     `json:"recorded_by"`
	Cases      []realCase `json:"cases"`
}

type realCase struct {
	Name string    `json:"name"`
	Mode string    `json:"mode"`
	Jobs []realJob `json:"jobs"`
}

type realJob struct {
	Spec   string      `json:"spec"`
	Sbatch []string    `json:"sbatch"`
	Slurm  realOutcome `json:"slurm"`
}

// realOutcome is `scontrol show job -d` for a submitted job, or the answer
// of `sbatch --test-only` (OK, Processors, Nodes or Error).
type realOutcome struct {
	State      string     `json:"state"`
	Reason     string     `json:"reason"`
	Nodes      string     `json:"nodes"`
	NumCPUs    int        `json:"num_cpus"`
	PerNode    []realNode `json:"per_node"`
	OK         bool       `json:"ok"`
	Processors int        `json:"processors"`
	Error      string     `json:"error"`
	// StartEpoch is a running job's StartTime, or the start --test-only
	// expects; AskedEpoch is when --test-only was asked.
	StartEpoch int64 `json:"start_epoch"`
	AskedEpoch int64 `json:"asked_epoch"`
}

// realNode is one `Nodes= CPU_IDs= Mem= GRES=` line; Cores are the core
// indexes behind CPU_IDs (CPU id / ThreadsPerCore, as scontrol prints them).
type realNode struct {
	Name  string `json:"name"`
	Cores []int  `json:"cores"`
	MemMB uint64 `json:"mem_mb"`
	Gres  string `json:"gres"`
}

// realKnown are the cases where sift still differs from the running Slurm,
// keyed "file/case", with the reason. Each is listed in docs/COMPATIBILITY.md.
var realKnown = map[string]string{
	"rand-gpu/ntasks=15,gpus=5 ; cpus-per-task=9,mem-per-cpu=2000,exclude=g1,gpus-per-node=1 ; mem-per-cpu=2000,exclusive,nodelist=h1": gpuJobTasks,
	"rand-gpu/ntasks=15,mem-per-cpu=8000,gpus=5": gpuJobTasks,
}

// Reasons of the known differences.
const (
	gpuJobTasks = "--gpus=N over several nodes: Slurm lays tasks out in proportion to each node's GPUs (12+3 for 15 tasks, 4+1 GPUs); sift by CPUs"
)

var selectTypeLine = regexp.MustCompile(`(?m)^SelectType=select/(\S+)`)

// realDirEnv names a directory of recordings to replay instead of the
// committed ones (make lab replays what it just recorded).
const realDirEnv = "SIFT_SLURM_REAL"

func TestSelectMatchesRealSlurm(t *testing.T) {
	dir := "testdata/select/slurm-real"
	if d := os.Getenv(realDirEnv); d != "" {
		dir = d
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded Slurm answers: %v", err)
	}
	total, agree := 0, 0
	for _, file := range files {
		var rec realRecord
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		m := selectTypeLine.FindStringSubmatch(rec.SlurmConf)
		if m == nil {
			t.Fatalf("%s: no SelectType", file)
		}
		plugin := m[1]
		conf := filepath.Join(t.TempDir(), "slurm.conf")
		if err := os.WriteFile(conf, []byte(rec.SlurmConf), 0o600); err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, c := range rec.Cases {
			key := base + "/" + c.Name
			total++
			if agreesOrKnown(t, key, replayReal(t, conf, plugin, c), realKnown, "realKnown") {
				agree++
			}
		}
	}
	t.Logf("%d cases replayed, %d agree with Slurm, %d known differences", total, agree, len(realKnown))
}

// agreesOrKnown reports whether a replayed case agrees with Slurm (diff
// empty); a difference not in known, or a known one that no longer
// differs (named listName), fails the test.
func agreesOrKnown(t *testing.T, key, diff string, known map[string]string, listName string) bool {
	t.Helper()
	why, isKnown := known[key]
	switch {
	case diff == "" && isKnown:
		t.Errorf("%s: now agrees with Slurm; drop it from %s (%s)", key, listName, why)
	case diff == "":
		return true
	case !isKnown:
		t.Errorf("%s: %s", key, diff)
	}
	return false
}

// replayReal runs a case's jobs in order through sift select and returns
// how the first differing job differs from Slurm ("" when all agree).
func replayReal(t *testing.T, conf, plugin string, c realCase) string {
	t.Helper()
	state := t.TempDir()
	first := int64(0) // Slurm's start of the case's first job
	for i, j := range c.Jobs {
		spec, mode := j.Spec, c.Mode
		if rest, ok := strings.CutPrefix(spec, "test-only:"); ok {
			spec, mode = rest, "test-only"
		}
		args := []string{"select", "--nodes", conf, "--plugin", plugin, "--output", "json", "--now", strconv.Itoa(realNow),
			"--state", state, "--job", spec}
		if mode == "test-only" {
			// sbatch --test-only asks slurmctld for a will-run estimate.
			args = append(args, "--mode", "will-run")
		}
		out, errs, code := runCLI(args...)
		if d := compareReal(mode, first, j.Slurm, out, errs, code); d != "" {
			return fmt.Sprintf("job %d (%s): %s", i+1, j.Spec, d)
		}
		if first == 0 && j.Slurm.State == "RUNNING" {
			first = j.Slurm.StartEpoch
		}
	}
	return ""
}

// realNow is the clock sift runs with; every job of a case starts then.
const realNow = 1000000

// startOffset compares when Slurm and sift expect a will-run job to start:
// Slurm's estimate against the case's first start (its jobs start within
// seconds of each other), sift's against realNow.
func startOffset(first int64, want realOutcome, got int64) string {
	siftOff := got - realNow
	if startsNow(want) {
		if siftOff > 1 {
			return fmt.Sprintf("Slurm starts it now, sift in %d s", siftOff)
		}
		return ""
	}
	if first == 0 {
		return fmt.Sprintf("Slurm starts it at %d with nothing running", want.StartEpoch)
	}
	if slurmOff := want.StartEpoch - first; slurmOff-siftOff > 5 || siftOff-slurmOff > 5 {
		return fmt.Sprintf("Slurm starts it %d s after the first job, sift %d s", slurmOff, siftOff)
	}
	return ""
}

// startsNow reports whether a --test-only answer starts the job at once.
func startsNow(want realOutcome) bool {
	return want.StartEpoch == 0 || want.StartEpoch <= want.AskedEpoch+2
}

// within reports whether every host of hostlist a is in hostlist b.
func within(a, b string) bool {
	la, err := hostlist.Parse(hostlist.Slurm, a)
	if err != nil {
		return false
	}
	lb, err := hostlist.Parse(hostlist.Slurm, b)
	if err != nil {
		return false
	}
	hosts, err := la.Expand(1 << 16)
	if err != nil {
		return false
	}
	for _, h := range hosts {
		if lb.Find(h) < 0 {
			return false
		}
	}
	return true
}

func compareReal(mode string, first int64, want realOutcome, out, errs string, code int) string {
	var got selectOutput
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			return fmt.Sprintf("bad sift output %q: %v", out, err)
		}
	}
	if mode == "test-only" {
		switch {
		case !want.OK && (code == 3 && strings.Contains(errs, "never") || code == 2):
			// Exit 2 is sift refusing the spec as sbatch does.
			return ""
		case !want.OK:
			return fmt.Sprintf("Slurm refuses (%s), sift exits %d %q %q", want.Error, code, strings.TrimSpace(out), strings.TrimSpace(errs))
		case code != 0:
			return fmt.Sprintf("Slurm would start it on %s, sift exits %d %q", want.Nodes, code, strings.TrimSpace(errs))
		case got.TotalCPUs != want.Processors:
			return fmt.Sprintf("Slurm %s with %d CPUs, sift %s with %d", want.Nodes, want.Processors, got.Nodes, got.TotalCPUs)
		case got.Nodes != want.Nodes && !(startsNow(want) && within(got.Nodes, want.Nodes)):
			// For a job that can start now Slurm names every node it
			// could use (job_start_data prints the bitmap it tested).
			return fmt.Sprintf("Slurm %s with %d CPUs, sift %s with %d", want.Nodes, want.Processors, got.Nodes, got.TotalCPUs)
		}
		return startOffset(first, want, got.Start)
	}
	switch want.State {
	case "RUNNING":
	case "PENDING":
		never := want.Reason == "PartitionConfig" || want.Reason == "BadConstraints" || strings.HasPrefix(want.Reason, "ReqNodeNotAvail")
		switch {
		case code != 3:
			return fmt.Sprintf("Slurm leaves it pending (%s), sift exits %d %q", want.Reason, code, strings.TrimSpace(out))
		case never != strings.Contains(errs, "never"):
			return fmt.Sprintf("Slurm leaves it pending (%s), sift says %q", want.Reason, strings.TrimSpace(errs))
		}
		return ""
	case "REJECTED":
		if code == 3 && strings.Contains(errs, "never") || code == 2 {
			return ""
		}
		return fmt.Sprintf("Slurm rejects it (%s), sift exits %d %q", want.Error, code, strings.TrimSpace(out))
	default:
		return fmt.Sprintf("unexpected Slurm state %q", want.State)
	}
	if code != 0 {
		return fmt.Sprintf("Slurm runs it on %s, sift exits %d %q", want.Nodes, code, strings.TrimSpace(errs))
	}
	if got.Nodes != want.Nodes {
		return fmt.Sprintf("nodes: Slurm %s, sift %s", want.Nodes, got.Nodes)
	}
	if got.TotalCPUs != want.NumCPUs {
		return fmt.Sprintf("CPUs: Slurm %d, sift %d", want.NumCPUs, got.TotalCPUs)
	}
	if len(got.PerNode) != len(want.PerNode) {
		return fmt.Sprintf("per-node lines: Slurm %d, sift %d", len(want.PerNode), len(got.PerNode))
	}
	for k, w := range want.PerNode {
		g := got.PerNode[k]
		if g.Name != w.Name {
			return fmt.Sprintf("node %d: Slurm %s, sift %s", k, w.Name, g.Name)
		}
		if cores := ranges(w.Cores); got.Plugin != "linear" && g.Cores != cores {
			return fmt.Sprintf("%s cores: Slurm %s, sift %s", w.Name, cores, g.Cores)
		}
		if g.MemMB != w.MemMB {
			return fmt.Sprintf("%s memory: Slurm %d, sift %d", w.Name, w.MemMB, g.MemMB)
		}
		if gpus := gresGPUs(w.Gres); g.GPUs != gpus {
			return fmt.Sprintf("%s GPUs: Slurm %d (%s), sift %d", w.Name, gpus, w.Gres, g.GPUs)
		}
	}
	return ""
}

// gresGPUs counts the GPUs of a GRES= detail such as gpu:a100:2(IDX:0-1).
func gresGPUs(s string) int {
	n := 0
	for _, item := range strings.Split(s, ",") {
		if !strings.HasPrefix(item, "gpu") {
			continue
		}
		item, _, _ = strings.Cut(item, "(")
		f := strings.Split(item, ":")
		if c, err := strconv.Atoi(f[len(f)-1]); err == nil {
			n += c
		}
	}
	return n
}
