// Command simtable replays every SWF trace it is given with FIFO and with
// Slurm's backfill through `sift sim`, one child process per replay so
// that each run's CPU time and peak memory are its own, and prints the
// table of BENCHMARKS.md's "sim (issue 18)" section: jobs, mean wait, mean
// bounded slowdown, utilization, wall and CPU time, simulated days per
// hour, time per pass and peak memory, then whether backfill beat FIFO on
// mean wait and mean bounded slowdown for each trace. `make simtable` runs
// it on ../shared/data/traces.
//
//	go run ./sim/internal/cmd/simtable [-sift bin/sift] [-policies fifo,backfill] [-out DIR] TRACE.swf[.gz]...
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// summary is what the table reads of `sift sim --json`.
type summary struct {
	Nodes      int     `json:"nodes"`
	Jobs       int     `json:"jobs"`
	MeanWait   float64 `json:"mean_wait_s"`
	MeanBSLD   float64 `json:"mean_bsld"`
	Util       float64 `json:"utilization"`
	Backfilled int     `json:"backfilled_jobs"`
	Passes     int     `json:"passes"`
	MeanPassMS float64 `json:"mean_pass_ms"`
	MaxPassMS  float64 `json:"max_pass_ms"`
	Wall       float64 `json:"wall_s"`
	DaysHour   float64 `json:"sim_days_per_hour"`
}

// run is one replay's outcome.
type run struct {
	trace, policy string
	s             summary
	cpu           time.Duration
	peakKB        int64
}

func main() {
	sift := flag.String("sift", "bin/sift", "the sift binary to run")
	policies := flag.String("policies", "fifo,backfill", "policies to replay each trace with, comma-separated")
	out := flag.String("out", "", "directory for each replay's --json file (default: a temporary one, removed)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: simtable [flags] TRACE.swf[.gz]...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	dir := *out
	if dir == "" {
		d, err := os.MkdirTemp("", "simtable")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	fmt.Println("| trace | nodes | policy | jobs | mean wait | mean bsld | utilization | backfilled | passes | per pass (mean / max) | wall | CPU | days/hour | peak RSS |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	var runs []run
	for _, path := range flag.Args() {
		for _, pol := range strings.Split(*policies, ",") {
			r, err := replay(*sift, path, pol, dir)
			if err != nil {
				fail(err)
			}
			runs = append(runs, r)
			s := r.s
			fmt.Printf("| %s | %d | %s | %d | %.0f s | %.2f | %.1f%% | %d | %d | %.3f / %.0f ms | %.1f s | %.1f s | %.0f | %d MB |\n",
				r.trace, s.Nodes, r.policy, s.Jobs, s.MeanWait, s.MeanBSLD, 100*s.Util, s.Backfilled, s.Passes, s.MeanPassMS, s.MaxPassMS,
				s.Wall, r.cpu.Seconds(), s.DaysHour, r.peakKB/1024)
		}
	}
	fmt.Println()
	for i := 0; i+1 < len(runs); i++ {
		f, b := runs[i], runs[i+1]
		if f.trace != b.trace || f.policy != "fifo" || b.policy != "backfill" {
			continue
		}
		verdict := "beats"
		if !(b.s.MeanWait < f.s.MeanWait && b.s.MeanBSLD < f.s.MeanBSLD) {
			verdict = "does NOT beat"
		}
		fmt.Printf("%s: backfill %s FIFO (mean wait %.0f s against %.0f s, mean bsld %.2f against %.2f)\n",
			f.trace, verdict, b.s.MeanWait, f.s.MeanWait, b.s.MeanBSLD, f.s.MeanBSLD)
	}
}

// replay runs `sift sim --trace path --policy pol --json FILE` and reads
// its summary, CPU time and peak memory.
func replay(sift, path, pol, dir string) (run, error) {
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".swf")
	js := filepath.Join(dir, name+"-"+pol+".json")
	cmd := exec.Command(sift, "sim", "--trace", path, "--policy", pol, "--json", js)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return run{}, fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	b, err := os.ReadFile(js)
	if err != nil {
		return run{}, err
	}
	r := run{trace: name, policy: pol}
	if err := json.Unmarshal(b, &r.s); err != nil {
		return run{}, fmt.Errorf("%s: %w", js, err)
	}
	st := cmd.ProcessState
	r.cpu = st.UserTime() + st.SystemTime()
	r.peakKB = peakKB(st)
	return r, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "simtable:", err)
	os.Exit(1)
}
