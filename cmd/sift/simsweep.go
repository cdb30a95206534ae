package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/nodesift/sift/sim"
)

// sweepConfig is a sweep's YAML file: the grid's axes and the sim flags
// every point shares.
type sweepConfig struct {
	// Traces are --trace values; "" or "synthetic" is the built-in
	// workload. Relative paths are relative to the config file.
	Traces []string `yaml:"traces"`
	// Nodes are --nodes values: the cluster axis (synthetic:N sizes, header,
	// inventories). Empty: sim's default.
	Nodes []string `yaml:"nodes"`
	// Policies are --policy values (default backfill).
	Policies []string `yaml:"policies"`
	// Knobs maps a SchedulerParameters knob of sift sim (bf_window, ...)
	// to its values; every combination is a point.
	Knobs map[string][]string `yaml:"knobs"`
	// Args are further sift sim flags for every point.
	Args []string `yaml:"args"`
}

// sweepPoint is one point of the grid and the sift sim arguments that run it.
type sweepPoint struct {
	Index  int               `json:"point"`
	Name   string            `json:"name"`
	Trace  string            `json:"trace"`
	Nodes  string            `json:"nodes"`
	Policy string            `json:"policy"`
	Knobs  map[string]string `json:"knobs,omitempty"`
	Args   []string          `json:"args"`
}

// sweepResult is what one point writes: the point and its metrics.
type sweepResult struct {
	sweepPoint
	Summary sim.Summary `json:"summary"`
}

// sweepFlags are sift sim sweep's settings.
type sweepFlags struct {
	out, emit, sift string
	workers, point  int
	timing          bool
}

func newSimSweepCmd() *cobra.Command {
	f := &sweepFlags{}
	cmd := &cobra.Command{
		Use:   "sweep CONFIG",
		Short: "Run a grid of simulations (traces x clusters x policies x knobs) on all cores, or emit it as a job array",
		Long: `sweep runs one sift sim per point of the grid CONFIG (YAML) describes:

  traces: [../shared/data/traces/KTH-SP2-1996-2.1-cln.swf.gz]  # --trace values, or synthetic
  nodes: [header, header+32]                    # --nodes values: the cluster axis
  policies: [fifo, backfill]                    # --policy values
  knobs: {bf_window: [60, 1440]}                # sift sim knobs, every combination
  args: [--overrun, run]                        # more sift sim flags for every point

Points are numbered in that order (traces outermost, knobs innermost). Relative paths are
relative to CONFIG. Each point writes OUT/points/point-NNNN.json (the point, its sift sim
arguments and its metrics); then the summary is written as with sift sim collect:
OUT/summary.csv, OUT/summary.json and OUT/policies.svg (mean wait and mean bounded slowdown
per point, grouped by trace and cluster), and printed. The points run on --workers cores
(default: all) with a progress bar on a terminal, a line per point otherwise. The files do not
depend on the number of workers: wall-clock figures (wall_s, pass times, simulated days per
hour) are left out unless --timing.

--emit slurm-array prints an sbatch script that runs the points as a job array (task i runs
--point i), --emit flux a script that submits them with flux bulksubmit; run sift sim collect
OUT once they are done. --point I runs point I alone and writes its file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "sweep-out", "directory of the results")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "points run at once")
	fl.IntVar(&f.point, "point", -1, "run only this point (what each task of an emitted array runs)")
	fl.StringVar(&f.emit, "emit", "", "print a job script instead of running: slurm-array (sbatch --array) or flux (flux bulksubmit)")
	fl.StringVar(&f.sift, "sift", "", "sift executable the emitted script runs (default: this one's absolute path)")
	fl.BoolVar(&f.timing, "timing", false, "keep the wall-clock figures in the results (they differ from run to run)")
	return cmd
}

func newSimCollectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "collect DIR",
		Short: "Merge the per-point results of a sweep into its summary table and plot",
		Long: `collect reads DIR/points/point-*.json, written by sift sim sweep (or by the tasks of the
array it emitted), and writes DIR/summary.csv, DIR/summary.json and DIR/policies.svg and prints
the table, exactly as the sweep does when it runs the points itself.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := readSweepResults(args[0])
			if err != nil {
				return err
			}
			return writeSweepSummary(cmd.OutOrStdout(), args[0], results)
		},
	}
}

func (f *sweepFlags) run(cmd *cobra.Command, config string) error {
	points, err := loadSweep(config)
	if err != nil {
		return err
	}
	if f.workers < 1 {
		return invalidInput(fmt.Errorf("--workers must be at least 1"))
	}
	if f.point >= len(points) {
		return invalidInput(fmt.Errorf("--point %d: the sweep has %d points (0 to %d)", f.point, len(points), len(points)-1))
	}
	if f.emit != "" {
		return f.emitScript(cmd.OutOrStdout(), config, len(points))
	}
	if err := os.MkdirAll(filepath.Join(f.out, "points"), 0o755); err != nil {
		return err
	}
	if f.point >= 0 {
		_, err := f.runPoint(points[f.point])
		return err
	}
	results := make([]sweepResult, len(points))
	errs := make([]error, len(points))
	next := make(chan int)
	var mu sync.Mutex
	done := f.progress(cmd.ErrOrStderr(), len(points))
	var wg sync.WaitGroup
	for range min(f.workers, len(points)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := f.runPoint(points[i])
				results[i], errs[i] = r, err
				mu.Lock()
				done(r, err)
				mu.Unlock()
			}
		}()
	}
	for i := range points {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return writeSweepSummary(cmd.OutOrStdout(), f.out, results)
}

// progress returns what each finished point calls: a progress bar when w
// is a terminal, else a plain line per point.
func (f *sweepFlags) progress(w io.Writer, n int) func(sweepResult, error) {
	if bar := terminalBar(w, n, "sweep"); bar != nil {
		return func(sweepResult, error) { _ = bar.Add(1) }
	}
	k := 0
	return func(r sweepResult, err error) {
		k++
		if err != nil {
			fmt.Fprintf(w, "sweep: %d/%d: point %d failed: %v\n", k, n, r.Index, err)
			return
		}
		fmt.Fprintf(w, "sweep: %d/%d: point %d (%s): mean wait %.0f s\n", k, n, r.Index, r.Name, r.Summary.MeanWait)
	}
}

// runPoint runs one point in-process as sift sim does and writes its file.
func (f *sweepFlags) runPoint(p sweepPoint) (sweepResult, error) {
	r := sweepResult{sweepPoint: p}
	sf := newSimFlags()
	if !f.timing {
		sf.clock = nil
	}
	cmd := sf.command()
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.ParseFlags(p.Args); err != nil {
		return r, invalidInput(fmt.Errorf("point %d (%s): %w", p.Index, p.Name, err))
	}
	o, err := sf.simulate(cmd)
	if err != nil {
		return r, fmt.Errorf("point %d (%s): %w", p.Index, p.Name, err)
	}
	r.Summary = o.res.Summary
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return r, err
	}
	return r, os.WriteFile(filepath.Join(f.out, "points", fmt.Sprintf("point-%04d.json", p.Index)), append(b, '\n'), 0o644)
}

// loadSweep reads CONFIG and lays out its grid.
func loadSweep(path string) ([]sweepPoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c sweepConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, invalidInput(fmt.Errorf("%s: %w", path, err))
	}
	dir := filepath.Dir(path)
	traces := orDefault(c.Traces, "synthetic")
	nodes := orDefault(c.Nodes, "")
	policies := orDefault(c.Policies, string(sim.Backfill))
	for _, p := range policies {
		if _, err := sim.ParsePolicy(p); err != nil {
			return nil, invalidInput(fmt.Errorf("%s: policies: %w", path, err))
		}
	}
	names := make([]string, 0, len(c.Knobs))
	for k, vs := range c.Knobs {
		if !slices.ContainsFunc(scheduleKnobs, func(s struct{ name, help string }) bool { return s.name == k }) {
			return nil, invalidInput(fmt.Errorf("%s: knobs: %q is not a knob of sift sim (%s); put other flags in args", path, k, knobNames()))
		}
		if len(vs) == 0 {
			return nil, invalidInput(fmt.Errorf("%s: knobs: %s has no values", path, k))
		}
		names = append(names, k)
	}
	slices.Sort(names)
	combos := []map[string]string{{}}
	for _, k := range names {
		var next []map[string]string
		for _, base := range combos {
			for _, v := range c.Knobs[k] {
				m := map[string]string{k: v}
				for bk, bv := range base {
					m[bk] = bv
				}
				next = append(next, m)
			}
		}
		combos = next
	}
	var points []sweepPoint
	for _, tr := range traces {
		for _, ns := range nodes {
			for _, pol := range policies {
				for _, knobs := range combos {
					p := sweepPoint{Index: len(points), Trace: traceLabel(tr), Nodes: ns, Policy: pol}
					if len(knobs) > 0 {
						p.Knobs = knobs
					}
					if tr != "" && tr != "synthetic" {
						p.Args = append(p.Args, "--trace", relativeTo(dir, tr))
					}
					if ns != "" {
						p.Args = append(p.Args, "--nodes", nodesRelativeTo(dir, ns))
					}
					p.Args = append(p.Args, "--policy", pol)
					parts := []string{p.Trace}
					if ns != "" {
						parts = append(parts, ns)
					}
					parts = append(parts, pol)
					for _, k := range names {
						p.Args = append(p.Args, "--"+knobFlag(k), knobs[k])
						parts = append(parts, k+"="+knobs[k])
					}
					p.Args = append(p.Args, c.Args...)
					p.Name = strings.Join(parts, " ")
					points = append(points, p)
				}
			}
		}
	}
	return points, nil
}

func orDefault(xs []string, def string) []string {
	if len(xs) == 0 {
		return []string{def}
	}
	return xs
}

func knobNames() string {
	out := make([]string, len(scheduleKnobs))
	for i, k := range scheduleKnobs {
		out[i] = k.name
	}
	return strings.Join(out, ", ")
}

// traceLabel names a trace in tables: its file name without extensions.
func traceLabel(tr string) string {
	if tr == "" || tr == "synthetic" {
		return "synthetic"
	}
	base := filepath.Base(tr)
	for _, ext := range []string{".gz", ".swf", ".csv", ".json", ".txt"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// nodesRelativeTo resolves a --nodes file against dir, leaving the
// built-in specs alone.
func nodesRelativeTo(dir, spec string) string {
	if strings.HasPrefix(spec, "header") || strings.HasPrefix(spec, "synthetic:") {
		return spec
	}
	return relativeTo(dir, spec)
}

// emitScript prints the job script that runs the n points on a cluster.
func (f *sweepFlags) emitScript(w io.Writer, config string, n int) error {
	sift := f.sift
	if sift == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		sift = exe
	}
	cfg, err := filepath.Abs(config)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(f.out)
	if err != nil {
		return err
	}
	q := shellQuote
	switch f.emit {
	case "slurm-array":
		fmt.Fprintf(w, `#!/bin/bash
# sift sim sweep %[2]s: %[4]d points, one array task each.
# Submit with: mkdir -p %[3]s/logs && sbatch THIS_FILE
# (Slurm opens --output before the script runs); when every task is done: %[1]s sim collect %[3]s
#SBATCH --job-name=sift-sweep
#SBATCH --array=0-%[5]d
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=%[3]s/logs/point-%%a.out
set -euo pipefail
exec %[1]s sim sweep %[2]s --out %[3]s --point "$SLURM_ARRAY_TASK_ID"
`, q(sift), q(cfg), q(out), n, n-1)
	case "flux":
		fmt.Fprintf(w, `#!/bin/sh
# sift sim sweep %[2]s: %[4]d points, one Flux job each.
# Run this file; when every job is done: %[1]s sim collect %[3]s
set -eu
mkdir -p %[3]s/logs
flux bulksubmit --job-name=sift-sweep --output=%[3]s/logs/point-{}.out %[1]s sim sweep %[2]s --out %[3]s --point {} ::: $(seq 0 %[5]d)
`, q(sift), q(cfg), q(out), n, n-1)
	default:
		return invalidInput(fmt.Errorf("unknown --emit %q, expected slurm-array or flux", f.emit))
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readSweepResults reads DIR/points/point-*.json in point order.
func readSweepResults(dir string) ([]sweepResult, error) {
	files, err := filepath.Glob(filepath.Join(dir, "points", "point-*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, invalidInput(fmt.Errorf("%s: no points/point-*.json results", dir))
	}
	results := make([]sweepResult, 0, len(files))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var r sweepResult
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, invalidInput(fmt.Errorf("%s: %w", file, err))
		}
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b sweepResult) int { return a.Index - b.Index })
	return results, nil
}

// sweepColumns are the summary table's columns after the point's own.
var sweepColumns = []string{"jobs", "started", "mean_wait_s", "median_wait_s", "p95_wait_s", "max_wait_s", "mean_bsld", "p95_bsld", "utilization", "makespan_s", "backfilled_jobs"}

func sweepRow(r *sweepResult) []string {
	s := &r.Summary
	g := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return []string{strconv.Itoa(r.Index), r.Trace, r.Nodes, r.Policy, knobsText(r.Knobs),
		strconv.Itoa(s.Jobs), strconv.Itoa(s.Started), g(s.MeanWait), g(s.MedianWait), g(s.P95Wait), g(s.MaxWait),
		g(s.MeanBSLD), g(s.P95BSLD), g(s.Utilization), strconv.FormatInt(s.Makespan, 10), strconv.Itoa(s.Backfilled)}
}

func knobsText(k map[string]string) string {
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		names[i] = n + "=" + k[n]
	}
	return strings.Join(names, " ")
}

// writeSweepSummary writes summary.csv, summary.json and policies.svg into
// dir and prints the table.
func writeSweepSummary(w io.Writer, dir string, results []sweepResult) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	header := append([]string{"point", "trace", "nodes", "policy", "knobs"}, sweepColumns...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range results {
		if err := cw.Write(sweepRow(&results[i])); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := os.WriteFile(filepath.Join(dir, "summary.csv"), b.Bytes(), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := writePolicyBars(filepath.Join(dir, "policies.svg"), results); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "point\ttrace\tnodes\tpolicy\tknobs\tjobs\tmean wait s\tmedian\tp95\tmean bsld\tutilization\tbackfilled")
	for i := range results {
		r := &results[i]
		s := &r.Summary
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.1f%%\t%d\n", r.Index, r.Trace, orDash(r.Nodes), r.Policy, orDash(knobsText(r.Knobs)),
			s.Jobs, s.MeanWait, s.MedianWait, s.P95Wait, s.MeanBSLD, 100*s.Utilization, s.Backfilled)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
