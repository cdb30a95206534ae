package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodesift/sift/bench/cputime"
)

// Options control a benchmark run.
type Options struct {
	// Sizes replaces every suite's default sizes when not empty.
	Sizes []int
	// Count is the number of timed samples per contestant (default 6, the
	// fewest benchstat computes a confidence interval from).
	Count int
	// MinSample is the shortest duration of one sample; the inner loop grows
	// until a sample lasts at least this long (default 10ms).
	MinSample time.Duration
	// CPUProfileDir, when set, receives one CPU profile per suite.
	CPUProfileDir string
	// Progress, when set, receives one line per suite and size as it runs.
	Progress io.Writer
}

// Measurement is the timing of one contestant at one size.
type Measurement struct {
	Engine string `json:"engine"`
	// Iters is the number of ops in every sample.
	Iters    int       `json:"iters"`
	Samples  []float64 `json:"samples_ns"`
	MedianNS float64   `json:"median_ns"`
	P95NS    float64   `json:"p95_ns"`
	// Allocs and BytesOp are heap allocations and bytes per op.
	Allocs  float64 `json:"allocs"`
	BytesOp float64 `json:"bytes"`
	MBps    float64 `json:"mb_per_s,omitempty"`
	// CPUMedianNS is the median over samples of the CPU time per op of the
	// thread that ran it: unlike MedianNS, other processes on a shared
	// machine barely change it (the collector's background work is not in
	// it). 0 where the system cannot tell.
	CPUMedianNS float64 `json:"cpu_median_ns,omitempty"`
}

// Result is one suite at one size: sift's measurement, the baselines', and
// each baseline's ratio to sift (how many times faster sift is: the median
// over slice pairs of baseline time / sift time). "machine" is a fixed
// calibration loop timed alongside, the in-run baseline of every suite.
type Result struct {
	Suite string `json:"suite"`
	Nodes int    `json:"nodes"`
	Measurement
	Ratios map[string]float64 `json:"ratios"`
	// Spreads is, per baseline, the interquartile range of the per-slice
	// ratios relative to their median: how steady that ratio was in this
	// run. The regression gate trusts the steadiest baseline and tolerates
	// changes within the noise this implies.
	Spreads map[string]float64 `json:"ratio_spreads,omitempty"`
	// Tolerance is the suite's own least reported drop (Suite.Tolerance).
	Tolerance float64 `json:"tolerance,omitempty"`
	// Slices is the number of slice pairs each ratio is the median of.
	Slices    int           `json:"slices,omitempty"`
	Baselines []Measurement `json:"baselines,omitempty"`
	// RecordedRatios is, per recorded figure of the case (Case.Recorded),
	// that figure / sift's median: how many times faster sift is than an
	// operation that was not timed in this run. The regression gate ignores
	// them.
	RecordedRatios map[string]float64 `json:"recorded_ratios,omitempty"`
	// Profile holds the top functions of sift's samples when profiling.
	Profile *ProfileSummary `json:"profile,omitempty"`
	// Matches is how many nodes sift's answer holds (Case.Matches), or nil.
	Matches *int `json:"matches,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	Results []Result `json:"results"`
}

// machineBaseline names the calibration loop in ratios.
const machineBaseline = "machine"

// Run times every suite at every size and verifies that sift and the
// baselines agree. It stops at the first setup or verification error.
func Run(suites []Suite, opt Options) (*Report, error) {
	if opt.Count <= 0 {
		opt.Count = 6
	}
	if opt.MinSample <= 0 {
		opt.MinSample = 10 * time.Millisecond
	}
	rep := &Report{}
	for _, s := range suites {
		sizes := s.Sizes
		if len(opt.Sizes) > 0 {
			sizes = opt.Sizes
		}
		if s.SizeFree {
			sizes = []int{0}
		}
		var prof *os.File
		if opt.CPUProfileDir != "" {
			var err error
			if prof, err = startProfile(opt.CPUProfileDir, s.Name); err != nil {
				return nil, err
			}
		}
		first := len(rep.Results)
		for _, n := range sizes {
			r, err := runCase(s, n, opt)
			if err != nil {
				if prof != nil {
					pprof.StopCPUProfile()
					prof.Close()
				}
				return nil, err
			}
			rep.Results = append(rep.Results, r)
			if opt.Progress != nil {
				fmt.Fprintf(opt.Progress, "%s nodes=%d: %s/op\n", s.Name, n, FormatNS(r.MedianNS))
			}
		}
		if prof != nil {
			pprof.StopCPUProfile()
			if err := prof.Close(); err != nil {
				return nil, fmt.Errorf("bench: %w", err)
			}
			sum, err := summarizeProfile(prof.Name(), 8)
			if err != nil {
				return nil, err
			}
			for i := first; i < len(rep.Results); i++ {
				rep.Results[i].Profile = sum
			}
		}
	}
	return rep, nil
}

// ProfileFile is the file name of a suite's CPU profile inside the directory.
func ProfileFile(suite string) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(suite) + ".pprof"
}

func startProfile(dir, suite string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, ProfileFile(suite)))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: cpu profile: %w", err)
	}
	return f, nil
}

// maxSlices is how many parts a sample is cut into at most. The parts of
// all contestants alternate, so load on a shared machine that comes and goes
// within a sample hits sift and its baselines alike. A case gets fewer when
// one of its contestants needs fewer ops than that for a sample: cutting
// further would make the slow contestant's samples longer than the minimum.
const maxSlices = 8

type contestant struct {
	name string
	op   func()
	m    Measurement
	// per is the ops of one slice.
	per int
	// sliceNS is the time per op of every slice, in run order.
	sliceNS []float64
	// cur and cpuCur accumulate the current sample's wall and thread CPU
	// time, cpuSamples holds the samples' CPU time per op (none when the
	// system cannot tell); ops and the memory counters accumulate over the
	// whole run.
	cur, cpuCur             time.Duration
	cpuSamples              []float64
	ops, mallocs, allocated uint64
}

// runCase sets up, times and verifies one suite at one size. A panic in the
// code under test is reported as an error naming the suite and size.
func runCase(s Suite, n int, opt Options) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("bench: %s nodes=%d: panic: %v", s.Name, n, p)
		}
	}()
	c, err := s.Setup(n)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %s nodes=%d: %w", s.Name, n, err)
	}
	cs := []*contestant{{name: "sift", op: c.Op}}
	for _, b := range c.Baselines {
		cs = append(cs, &contestant{name: b.Name, op: b.Op})
	}
	cs = append(cs, &contestant{name: machineBaseline, op: calibrate})
	// Start every case from a collected heap, whatever ran before.
	runtime.GC()
	minSample := opt.MinSample
	if opt.CPUProfileDir != "" {
		// 100 Hz sampling: longer samples so each suite's profile has enough.
		minSample = max(minSample, 50*time.Millisecond)
	}
	ctx := context.Background()
	for i, ct := range cs {
		d := minSample
		if opt.CPUProfileDir != "" && i == 0 {
			// sift's samples are the ones summarized: give them more.
			d = 4 * minSample
		}
		labels := pprof.Labels("suite", s.Name, "nodes", strconv.Itoa(n), "engine", ct.name)
		pprof.Do(ctx, labels, func(context.Context) { ct.m.Iters = warmUp(ct.op, d) })
	}
	warmHeap(cs, 100*minSample)
	nSlices := maxSlices
	for _, ct := range cs {
		nSlices = min(nSlices, ct.m.Iters)
	}
	for _, ct := range cs {
		ct.per = max(1, ct.m.Iters/nSlices)
		ct.m.Iters = ct.per * nSlices
	}
	for range opt.Count {
		for range nSlices {
			for _, ct := range cs {
				labels := pprof.Labels("suite", s.Name, "nodes", strconv.Itoa(n), "engine", ct.name)
				pprof.Do(ctx, labels, func(context.Context) { ct.slice() })
			}
		}
		for _, ct := range cs {
			ct.m.Samples = append(ct.m.Samples, float64(ct.cur.Nanoseconds())/float64(ct.m.Iters))
			if ct.cpuCur > 0 {
				ct.cpuSamples = append(ct.cpuSamples, float64(ct.cpuCur.Nanoseconds())/float64(ct.m.Iters))
			}
			ct.cur, ct.cpuCur = 0, 0
		}
	}
	if c.Verify != nil {
		if err := c.Verify(); err != nil {
			return Result{}, fmt.Errorf("bench: %s nodes=%d: %w", s.Name, n, err)
		}
	}
	r := Result{Suite: s.Name, Nodes: n, Ratios: map[string]float64{}, Spreads: map[string]float64{}, Slices: opt.Count * nSlices, Tolerance: s.Tolerance}
	if c.Matches != nil {
		m := c.Matches()
		r.Matches = &m
	}
	for i, ct := range cs {
		ct.m.Engine = ct.name
		ct.m.MedianNS = quantile(ct.m.Samples, 0.5)
		ct.m.P95NS = quantile(ct.m.Samples, 0.95)
		if len(ct.cpuSamples) == len(ct.m.Samples) {
			ct.m.CPUMedianNS = quantile(ct.cpuSamples, 0.5)
		}
		ct.m.Allocs = float64(ct.mallocs) / float64(ct.ops)
		ct.m.BytesOp = float64(ct.allocated) / float64(ct.ops)
		if c.Bytes > 0 && ct.name != machineBaseline && ct.m.MedianNS > 0 {
			ct.m.MBps = float64(c.Bytes) / ct.m.MedianNS * 1e3
		}
		if i == 0 {
			r.Measurement = ct.m
			continue
		}
		r.Ratios[ct.name], r.Spreads[ct.name] = pairedRatio(ct.sliceNS, cs[0].sliceNS)
		if ct.name != machineBaseline {
			r.Baselines = append(r.Baselines, ct.m)
		}
	}
	for name, ns := range c.Recorded {
		if r.MedianNS > 0 {
			if r.RecordedRatios == nil {
				r.RecordedRatios = map[string]float64{}
			}
			r.RecordedRatios[name] = ns / r.MedianNS
		}
	}
	return r, nil
}

// warmHeap runs the contestants' ops in turn until the collector has
// finished two cycles, or for at most limit. runCase collects the heap
// before warming up, and until the heap has grown to the size the
// collector's pacing keeps, the ops' allocations land on pages the process
// has never touched: a page fault each, more than a microsecond in a VM.
// That made the samples it reached up to twice as slow as the rest and a
// run's median depend on how many they were (request 4 of the peer suite at
// 100k: 4 faults a run, medians of 7.0-7.7 or 10.3-10.8 µs from process to
// process). The first cycle sets the heap's goal from the live data, the
// second is reached by filling it; after that freed memory is reused, as in
// a process that has been running a while. Contestants that do not
// allocate end it at once.
func warmHeap(cs []*contestant, limit time.Duration) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	end, allocs := ms.NumGC+2, ms.Mallocs
	for start := time.Now(); ; {
		for _, ct := range cs {
			for range min(ct.m.Iters, 64) {
				ct.op()
			}
		}
		runtime.ReadMemStats(&ms)
		if ms.Mallocs == allocs || ms.NumGC >= end || time.Since(start) >= limit {
			return
		}
	}
}

// warmUp runs op until one batch lasts at least minSample and returns that
// batch length, as testing.B grows b.N.
func warmUp(op func(), minSample time.Duration) int {
	iters := 1
	for {
		start := time.Now()
		for range iters {
			op()
		}
		d := time.Since(start)
		if d >= minSample || iters >= 1<<30 {
			return iters
		}
		next := iters * 100
		if d > 0 {
			next = int(float64(iters) * 1.2 * float64(minSample) / float64(d))
		}
		iters = min(max(next, iters+1), iters*100)
	}
}

// slice times one slice of a sample and counts its allocations (the memory
// statistics are read outside the timed region).
func (c *contestant) slice() {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runtime.LockOSThread()
	cpu0, cpuOK := cputime.Thread()
	start := time.Now()
	for range c.per {
		c.op()
	}
	d := time.Since(start)
	cpu1, _ := cputime.Thread()
	runtime.UnlockOSThread()
	runtime.ReadMemStats(&after)
	c.cur += d
	if cpuOK {
		c.cpuCur += cpu1 - cpu0
	}
	c.sliceNS = append(c.sliceNS, float64(d.Nanoseconds())/float64(c.per))
	c.ops += uint64(c.per)
	c.mallocs += after.Mallocs - before.Mallocs
	c.allocated += after.TotalAlloc - before.TotalAlloc
}

// pairedRatio is the median over slices of base[k]/sift[k]: the two slices
// ran back to back, so load that slowed both cancels, and the median drops
// slices that load hit on one side only. spread is the interquartile range
// of those ratios over their median.
func pairedRatio(base, sift []float64) (ratio, spread float64) {
	rs := make([]float64, 0, len(base))
	for k := range min(len(base), len(sift)) {
		if sift[k] > 0 {
			rs = append(rs, base[k]/sift[k])
		}
	}
	ratio = quantile(rs, 0.5)
	if ratio > 0 {
		spread = (quantile(rs, 0.75) - quantile(rs, 0.25)) / ratio
	}
	return ratio, spread
}

// quantile is the nearest-rank q-quantile of xs (the median averages the two
// middle samples of an even count).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if q == 0.5 {
		m := len(s) / 2
		if len(s)%2 == 0 {
			return (s[m-1] + s[m]) / 2
		}
		return s[m]
	}
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// calibrationSink keeps the calibration loop from being optimized away.
var calibrationSink uint64

// calibrate is a fixed amount of integer work (about 10µs), the yardstick of
// suites without a baseline of their own.
func calibrate() {
	x := calibrationSink | 1
	for i := range 8192 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x += uint64(i)
	}
	calibrationSink = x
}

// FormatNS renders a duration in nanoseconds with three significant digits.
func FormatNS(ns float64) string {
	switch {
	case ns >= 1e9:
		return strconv.FormatFloat(ns/1e9, 'f', 3, 64) + "s"
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 3, 64) + "ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 2, 64) + "µs"
	}
	return strconv.FormatFloat(ns, 'f', 1, 64) + "ns"
}
