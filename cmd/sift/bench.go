package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nodesift/sift/bench"
	"github.com/spf13/cobra"
)

func init() { register(newBenchCmd) }

// benchSuites is the suite registry sift bench runs; tests replace it.
var benchSuites = bench.Registry

func newBenchCmd() *cobra.Command {
	var (
		suite, nodes, cpuprofile, jsonOut, compare, threshold, htmlOut, format, out string
		count, recheck                                                              int
		list                                                                        bool
		minSample                                                                   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time sift's hot paths against in-process baselines",
		Long: `bench runs sift's benchmark suites at several cluster sizes, side by side with
the per-node reference evaluator and expr-lang/expr (same data, same answers,
checked), and prints median and p95 time per operation, allocations, MB/s and
how many times faster sift is than each baseline (the × columns).

--suite peer runs the requests Slurm's and flux-core's own matching code was
timed on, on the same generated data (10k and 100k nodes), checks the match
counts given with that data at 100k, and adds a ×peer (recorded) column: the
peers' figures were recorded on a 2-core VM, not timed in this run. A run
without --suite leaves the peer suites out.

--compare BASE.json exits 3 when a suite's ratio to its in-run baseline fell
by more than --threshold against BASE.json (written earlier with --json); a
suite that regressed is rerun up to --recheck times first, so that a burst of
load on a shared machine does not fail the gate while a real slowdown does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			suites := bench.Select(benchSuites(), suite)
			if list {
				if suite == "" {
					suites = benchSuites()
				}
				for _, s := range suites {
					fmt.Fprintln(cmd.OutOrStdout(), s.Name)
				}
				return nil
			}
			if len(suites) == 0 {
				return invalidInput(fmt.Errorf("no suite matches %q (see sift bench --list)", suite))
			}
			sizes, err := parseSizes(nodes)
			if err != nil {
				return invalidInput(err)
			}
			thr, err := parsePercent(threshold)
			if err != nil {
				return invalidInput(err)
			}
			if format != "table" && format != "benchstat" {
				return invalidInput(fmt.Errorf("--format %q: want table or benchstat", format))
			}
			var base *bench.Report
			if compare != "" {
				if base, err = readReport(compare); err != nil {
					return err
				}
			}
			opt := bench.Options{
				Sizes: sizes, Count: count, MinSample: minSample,
				CPUProfileDir: cpuprofile, Progress: cmd.ErrOrStderr(),
			}
			rep, err := bench.Run(suites, opt)
			if err != nil {
				return err
			}
			var vs []bench.Verdict
			if base != nil {
				// Rechecks happen before anything is printed so that the
				// table, the files and the verdicts show the same runs.
				vs = bench.Compare(base, rep, thr)
				if vs, err = bench.Recheck(base, rep, suites, opt, thr, recheck, vs); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if format == "benchstat" {
				err = rep.WriteBenchstat(w)
			} else {
				err = rep.WriteTable(w)
			}
			if err != nil {
				return err
			}
			if cpuprofile != "" {
				rep.WriteProfiles(w)
			}
			for _, f := range []struct {
				path  string
				write func(io.Writer) error
			}{{jsonOut, rep.WriteJSON}, {out, rep.WriteBenchstat}, {htmlOut, rep.WriteHTML}} {
				if f.path != "" {
					if err := writeFile(f.path, f.write); err != nil {
						return err
					}
				}
			}
			if base == nil {
				return nil
			}
			fmt.Fprintf(w, "\ncompared with %s (threshold %s):\n", compare, threshold)
			if len(vs) == 0 {
				return invalidInput(errors.New("--compare: no suite and size in common with " + compare))
			}
			if bad := bench.WriteVerdicts(w, vs); bad > 0 {
				return unsatisfied(fmt.Errorf("%d of %d suite sizes regressed (threshold %s)", bad, len(vs), threshold))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&suite, "suite", "", "run the suites matching this glob or prefix (e.g. evaluate, */10-leaf)")
	f.StringVar(&nodes, "nodes", "", "comma-separated cluster sizes, e.g. 1000,10k,1M (default 1k,10k,100k)")
	f.IntVar(&count, "count", 6, "timed samples per suite, size and engine")
	f.DurationVar(&minSample, "min-sample", 10*time.Millisecond, "shortest duration of one sample")
	f.StringVar(&cpuprofile, "cpuprofile", "", "write one CPU profile per suite into this directory and print its top functions")
	f.StringVar(&jsonOut, "json", "", "write the results as JSON to this file")
	f.StringVar(&compare, "compare", "", "compare with a JSON report from an earlier run; exit 3 on a regression")
	f.StringVar(&threshold, "threshold", "10%", "largest tolerated drop of a suite's ratio to its baseline (measured noise may widen it, to 50% at most)")
	f.IntVar(&recheck, "recheck", 3, "with --compare, rerun a regressed suite up to this many times and keep its best run")
	f.StringVar(&htmlOut, "html", "", "write an HTML report with log-log plots to this file")
	f.StringVar(&format, "format", "table", "output format: table or benchstat")
	f.StringVar(&out, "out", "", "also write benchstat-readable lines to this file")
	f.BoolVar(&list, "list", false, "list the suites and exit")
	return cmd
}

// parseSizes reads "1000,10k,1M"; empty means the suites' defaults.
func parseSizes(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"), strings.HasSuffix(f, "K"):
			mult, f = 1000, f[:len(f)-1]
		case strings.HasSuffix(f, "M"), strings.HasSuffix(f, "m"):
			mult, f = 1000000, f[:len(f)-1]
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n > 10000000/mult {
			return nil, fmt.Errorf("--nodes: %q is not a node count between 1 and 10M", s)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// parsePercent reads "10%" or "0.1" as a fraction.
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("--threshold %q: want a percentage such as 10%%", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func readReport(path string) (*bench.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep, err := bench.ReadReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
