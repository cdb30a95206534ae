package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// BaselineNames returns the baseline names found in rep: reference, expr,
// then others in first-seen order, "machine" last.
func (rep *Report) BaselineNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rep.Results {
		for _, b := range r.Baselines {
			if !seen[b.Engine] {
				seen[b.Engine] = true
				names = append(names, b.Engine)
			}
		}
	}
	rank := func(n string) int {
		switch n {
		case "reference":
			return 0
		case "expr":
			return 1
		}
		return 2
	}
	sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
	return append(names, machineBaseline)
}

// WriteTable prints one row per suite and size: sift's median and p95 time
// per operation, its median thread CPU time per operation (cpu: what load
// from other processes barely changes), allocations and bytes per operation, MB/s where the suite
// has an input size, and how many times faster sift is than each baseline
// (the calibration loop's ratio is kept out of the table: it is a yardstick
// for --compare, not a contender), then, for suites that count them, how
// many nodes matched.
func (rep *Report) WriteTable(w io.Writer) error {
	names := rep.BaselineNames()
	names = names[:len(names)-1]
	rows := [][]string{{"suite", "nodes", "median", "p95", "cpu", "allocs/op", "B/op", "MB/s"}}
	for _, n := range names {
		rows[0] = append(rows[0], "×"+n)
	}
	recorded := rep.RecordedNames()
	for _, n := range recorded {
		rows[0] = append(rows[0], "×"+n)
	}
	matches := false
	for _, r := range rep.Results {
		matches = matches || r.Matches != nil
	}
	if matches {
		rows[0] = append(rows[0], "matches")
	}
	for _, r := range rep.Results {
		row := []string{r.Suite, strconv.Itoa(r.Nodes), FormatNS(r.MedianNS), FormatNS(r.P95NS), "-",
			formatCount(r.Allocs), formatCount(r.BytesOp), "-"}
		if r.CPUMedianNS > 0 {
			row[4] = FormatNS(r.CPUMedianNS)
		}
		if r.MBps > 0 {
			row[7] = strconv.FormatFloat(r.MBps, 'f', 1, 64)
		}
		for _, n := range names {
			if v, ok := r.Ratios[n]; ok {
				row = append(row, formatRatio(v))
			} else {
				row = append(row, "-")
			}
		}
		for _, n := range recorded {
			if v, ok := r.RecordedRatios[n]; ok {
				row = append(row, formatRatio(v))
			} else {
				row = append(row, "-")
			}
		}
		switch {
		case r.Matches != nil:
			row = append(row, strconv.Itoa(*r.Matches))
		case matches:
			row = append(row, "-")
		}
		rows = append(rows, row)
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteByte('\n')
	}
	if len(recorded) > 0 {
		b.WriteString("\n(recorded) columns: sift's median against a figure recorded elsewhere, not timed in this run;\n" +
			"peer: the peers' own C code on the same data on a 2-core VM (Slurm _apply_extra_constraints,\n" +
			"flux-core rnode_match; Slurm parse+free, flux-core constraint compile), see BENCHMARKS.md.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RecordedNames returns the names of the recorded figures in rep, sorted.
func (rep *Report) RecordedNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range rep.Results {
		for n := range r.RecordedRatios {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

func formatCount(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// formatRatio prints three significant digits, without exponents.
func formatRatio(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1 || v <= 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	digits := 2 - int(math.Floor(math.Log10(v)))
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// BenchmarkName is the Go benchmark name of a suite, engine and size, as
// benchstat reads it: BenchmarkEvaluate/slurm/10-leaf/engine=sift/nodes=100000.
func BenchmarkName(suite, engine string, nodes int) string {
	if suite != "" {
		suite = strings.ToUpper(suite[:1]) + suite[1:]
	}
	return "Benchmark" + suite + "/engine=" + strings.ReplaceAll(engine, "/", "-") + "/nodes=" + strconv.Itoa(nodes)
}

// WriteBenchstat writes every sample in the Go benchmark format (one line
// per sample, sift and baselines alike), with the configuration header
// benchstat groups by.
func (rep *Report) WriteBenchstat(w io.Writer) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/nodesift/sift/bench\n", runtime.GOOS, runtime.GOARCH)
	if cpu := cpuModel(); cpu != "" {
		fmt.Fprintf(w, "cpu: %s\n", cpu)
	}
	suffix := ""
	if p := runtime.GOMAXPROCS(0); p > 1 {
		suffix = "-" + strconv.Itoa(p)
	}
	for _, r := range rep.Results {
		for _, m := range append([]Measurement{r.Measurement}, r.Baselines...) {
			name := BenchmarkName(r.Suite, m.Engine, r.Nodes) + suffix
			for _, s := range m.Samples {
				line := fmt.Sprintf("%s\t%d\t%s ns/op", name, m.Iters, strconv.FormatFloat(s, 'f', 2, 64))
				if m.MBps > 0 && s > 0 {
					line += fmt.Sprintf("\t%.2f MB/s", m.MBps*m.MedianNS/s)
				}
				line += fmt.Sprintf("\t%.0f B/op\t%.0f allocs/op", m.BytesOp, m.Allocs)
				if _, err := fmt.Fprintln(w, line); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// WriteJSON writes rep as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: reading report: %w", err)
	}
	return &rep, nil
}

// Verdict is the comparison of one suite and size against a base report.
type Verdict struct {
	Suite    string
	Nodes    int
	Baseline string  // the in-run baseline the ratio is taken to
	Base     float64 // base run's ratio (baseline time / sift time)
	Current  float64 // this run's ratio
	// Change is Current/Base - 1: negative when sift got slower relative to
	// the baseline it ran beside.
	Change float64
	// Tolerance is the drop accepted: the largest of the threshold, the
	// suite's own tolerance, and noiseSigmas standard errors of the change
	// estimated from both runs' ratio spreads, capped at 50% (a suite whose
	// time varies is not failed on its noise, but a halving always fails).
	Tolerance float64
	Regressed bool
}

// Compare judges rep against base, suite by suite and size by size present
// in both. A suite regressed when its ratio to its in-run baseline fell by
// more than threshold (0.10 for 10%), or by more than the noise both runs
// measured in that ratio when that is larger (see Verdict.Tolerance):
// machine noise slows sift and the baseline alike, so it cancels. Of the
// baselines both runs have, the one whose ratio both runs measured most
// precisely judges: on a shared machine a memory-bound baseline can swing
// more than sift itself.
func Compare(base, rep *Report, threshold float64) []Verdict {
	type key struct {
		suite string
		nodes int
	}
	old := map[key]*Result{}
	for i := range base.Results {
		r := &base.Results[i]
		old[key{r.Suite, r.Nodes}] = r
	}
	var out []Verdict
	for _, r := range rep.Results {
		b := old[key{r.Suite, r.Nodes}]
		if b == nil {
			continue
		}
		name := gateBaseline(&r, b)
		if name == "" {
			continue
		}
		v := Verdict{Suite: r.Suite, Nodes: r.Nodes, Baseline: name, Base: b.Ratios[name], Current: r.Ratios[name]}
		v.Change = v.Current/v.Base - 1
		noise := min(maxNoiseTolerance, noiseSigmas*math.Hypot(medianError(b, name), medianError(&r, name)))
		v.Tolerance = max(threshold, r.Tolerance, noise)
		v.Regressed = v.Change < -v.Tolerance
		out = append(out, v)
	}
	return out
}

// noiseSigmas is how many standard errors of a change the gate tolerates. A
// default run makes about 40 comparisons; at 2 sigmas one of them would
// fail by chance in most runs, at 3.5 in well under one run in a hundred
// (for normal noise; rechecks absorb the rest).
const noiseSigmas = 3.5

// maxNoiseTolerance caps the tolerance noise can buy: however noisy a run,
// a suite that got twice as slow against its baseline fails the gate.
const maxNoiseTolerance = 0.5

// medianError is the relative standard error of r's ratio to baseline
// name: a median of n values whose interquartile range is spread (relative)
// has a standard error of about 0.93*spread/sqrt(n) for normal noise.
func medianError(r *Result, name string) float64 {
	if r.Slices <= 0 {
		return 0
	}
	return 0.93 * r.Spreads[name] / math.Sqrt(float64(r.Slices))
}

// gateBaseline is the baseline both results have whose ratio is known most
// precisely (smallest combined standard error), the calibration loop on a
// tie or when the reports carry no spreads.
func gateBaseline(cur, base *Result) string {
	best, bestErr := "", math.Inf(1)
	names := []string{machineBaseline}
	for _, b := range cur.Baselines {
		names = append(names, b.Engine)
	}
	for _, n := range names {
		if cur.Ratios[n] <= 0 || base.Ratios[n] <= 0 {
			continue
		}
		if e := math.Hypot(medianError(cur, n), medianError(base, n)); e < bestErr {
			best, bestErr = n, e
		}
	}
	return best
}

// Recheck reruns every suite and size that regressed in vs, up to tries
// times, and keeps in rep the run that fared best against base; it returns
// the verdicts against base after that. A real slowdown regresses on every
// try; a burst of load on a shared machine rarely does twice.
func Recheck(base, rep *Report, suites []Suite, opt Options, threshold float64, tries int, vs []Verdict) ([]Verdict, error) {
	byName := map[string]Suite{}
	for _, s := range suites {
		byName[s.Name] = s
	}
	for t := 0; t < tries; t++ {
		again := false
		for _, v := range vs {
			s, ok := byName[v.Suite]
			if !v.Regressed || !ok {
				continue
			}
			again = true
			o := opt
			o.Sizes, o.CPUProfileDir = []int{v.Nodes}, ""
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "rechecking %s nodes=%d (try %d of %d)\n", v.Suite, v.Nodes, t+1, tries)
			}
			// Fresh data: a process sometimes lays a structure out in a way
			// that is steadily slower or faster (medians of one suite were
			// bimodal across same-code runs), which only a rebuild changes.
			forgetInventories()
			re, err := Run([]Suite{s}, o)
			if err != nil {
				return nil, err
			}
			rv := Compare(base, re, threshold)
			if len(rv) != 1 || rv[0].Change <= v.Change {
				continue
			}
			for i := range rep.Results {
				if r := &rep.Results[i]; r.Suite == v.Suite && r.Nodes == v.Nodes {
					prof := r.Profile
					*r = re.Results[0]
					r.Profile = prof
				}
			}
		}
		if !again {
			break
		}
		vs = Compare(base, rep, threshold)
	}
	return vs, nil
}

// WriteVerdicts prints one line per comparison and returns how many regressed.
func WriteVerdicts(w io.Writer, vs []Verdict) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "suite\tnodes\tvs\tbase ratio\tratio\tchange\ttolerance\t")
	bad := 0
	for _, v := range vs {
		mark := "ok"
		if v.Regressed {
			mark = "REGRESSED"
			bad++
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%+.1f%%\t-%.0f%%\t%s\n", v.Suite, v.Nodes, v.Baseline,
			formatRatio(v.Base), formatRatio(v.Current), v.Change*100, v.Tolerance*100, mark)
	}
	tw.Flush()
	return bad
}

// WriteProfiles prints, per suite that was profiled, the top functions of
// sift's CPU samples by flat and by cumulative share.
func (rep *Report) WriteProfiles(w io.Writer) {
	seen := map[*ProfileSummary]bool{}
	for _, r := range rep.Results {
		p := r.Profile
		if p == nil || seen[p] {
			continue
		}
		seen[p] = true
		fmt.Fprintf(w, "\n%s: %s (%d samples of sift)\n", r.Suite, p.File, p.Samples)
		for i := 0; i < max(len(p.Flat), len(p.Cum)); i++ {
			flat, cum := "", ""
			if i < len(p.Flat) {
				flat = fmt.Sprintf("%5.1f%%  %s", p.Flat[i].Share*100, p.Flat[i].Func)
			}
			if i < len(p.Cum) {
				cum = fmt.Sprintf("%5.1f%%  %s", p.Cum[i].Share*100, p.Cum[i].Func)
			}
			if i == 0 {
				fmt.Fprintf(w, "  %-60s  %s\n", "flat", "cum")
			}
			fmt.Fprintf(w, "  %-60s  %s\n", flat, cum)
		}
	}
}
