package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nodesift/sift/hostlist"
)

// parseJob reads `scontrol -d show job` (with SLURM_TIME_FORMAT=%s) into an
// Outcome; tpc maps a node name to its ThreadsPerCore.
func parseJob(out string, tpc map[string]int) Outcome {
	var o Outcome
	fields := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "Nodes=") && strings.Contains(t, "CPU_IDs=") {
			o.PerNode = append(o.PerNode, parseNodeLine(t, tpc)...)
			continue
		}
		for _, kv := range strings.Fields(t) {
			k, v, ok := strings.Cut(kv, "=")
			if ok {
				if _, seen := fields[k]; !seen {
					fields[k] = v
				}
			}
		}
	}
	o.State = fields["JobState"]
	o.Reason = fields["Reason"]
	if n := fields["NodeList"]; n != "(null)" {
		o.Nodes = n
	}
	o.NumCPUs, _ = strconv.Atoi(fields["NumCPUs"])
	if o.State == "RUNNING" {
		o.StartEpoch, _ = strconv.ParseInt(fields["StartTime"], 10, 64)
	}
	o.Restarts, _ = strconv.Atoi(fields["Restarts"])
	if o.State != "PENDING" {
		o.EndEpoch, _ = strconv.ParseInt(fields["EndTime"], 10, 64)
	}
	return o
}

// parseNodeLine reads one detail line; scontrol folds nodes with the same
// CPU_IDs, memory and GRES into one line (Nodes=n[1-2]), which is unfolded
// into a Node each, as the replay expects.
func parseNodeLine(t string, tpc map[string]int) []Node {
	var n Node
	for _, kv := range strings.Fields(t) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "Nodes":
			n.Name = v
		case "CPU_IDs":
			n.CPUIDs = v
		case "Mem":
			n.MemMB, _ = strconv.ParseUint(v, 10, 64)
		case "GRES":
			n.Gres = v
		}
	}
	names := []string{n.Name}
	if l, err := hostlist.Parse(hostlist.Slurm, n.Name); err == nil {
		if hosts, err := l.Expand(1 << 16); err == nil {
			names = hosts
		}
	}
	var nodes []Node
	byThreads := map[int][]int{} // folded nodes share CPU_IDs: read them once
	for _, name := range names {
		m := n
		m.Name = name
		threads := tpc[name]
		if threads < 1 {
			threads = 1
		}
		cores, ok := byThreads[threads]
		if !ok {
			cores = coresOf(m.CPUIDs, threads)
			byThreads[threads] = cores
		}
		m.Cores = cores
		nodes = append(nodes, m)
	}
	return nodes
}

// maxCPUID bounds the CPU ids read from one detail line; Slurm numbers a
// node's CPUs from 0 in a 16-bit count, so a larger id is not scontrol's.
const maxCPUID = 1<<16 - 1

// coresOf lists the cores behind a CPU id list such as 0-3,8.
func coresOf(ids string, threads int) []int {
	seen := map[int]bool{}
	cores := []int{}
	for _, r := range strings.Split(ids, ",") {
		lo, hi, ok := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if ok {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		if a < 0 || b > maxCPUID {
			continue
		}
		for c := a; c <= b; c++ {
			if !seen[c/threads] {
				seen[c/threads] = true
				cores = append(cores, c/threads)
			}
		}
	}
	sort.Ints(cores)
	return cores
}

var willRun = regexp.MustCompile(`Job \d+ to start at (\d+).* using (\d+) processors on nodes (\S+) in partition`)

// parseTestOnly reads what `sbatch --test-only` printed.
func parseTestOnly(stderr string, failed bool) Outcome {
	if m := willRun.FindStringSubmatch(stderr); m != nil && !failed {
		var o Outcome
		o.OK = true
		o.StartEpoch, _ = strconv.ParseInt(m[1], 10, 64)
		o.Processors, _ = strconv.Atoi(m[2])
		o.Nodes = m[3]
		return o
	}
	return Outcome{Error: strings.TrimSpace(stderr)}
}

// nodeThreads maps each NodeName of a slurm.conf to its ThreadsPerCore.
func nodeThreads(conf string) map[string]int {
	m := map[string]int{}
	for _, line := range strings.Split(conf, "\n") {
		if !strings.HasPrefix(line, "NodeName=") {
			continue
		}
		name, threads := "", 1
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "NodeName":
				name = v
			case "ThreadsPerCore":
				threads, _ = strconv.Atoi(v)
			}
		}
		m[name] = threads
	}
	return m
}

// sbatchArgs turns a spec such as nodes=2,exclusive into sbatch options.
func sbatchArgs(spec string) []string {
	var args []string
	for _, item := range strings.Split(spec, ",") {
		if item = strings.TrimSpace(item); item != "" {
			args = append(args, "--"+item)
		}
	}
	return args
}

func parseSdiag(out string) map[string]string {
	m := map[string]string{}
	section := ""
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "Backfilling stats") {
			section = "backfill "
			continue
		}
		if strings.HasPrefix(t, "Main schedule statistics") {
			section = "main "
			continue
		}
		if k, v, ok := strings.Cut(t, ":"); ok && section != "" && v != "" {
			m[section+strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

func (o Outcome) summary() string {
	return fmt.Sprintf("%s/%s nodes=%s cpus=%d", o.State, o.Reason, o.Nodes, o.NumCPUs)
}
