package bench

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// FuncShare is one function's share of a profile's CPU time.
type FuncShare struct {
	Func  string  `json:"func"`
	Share float64 `json:"share"` // fraction of the engine's CPU time, 0..1
}

// ProfileSummary is the top of a suite's CPU profile, restricted to the
// samples labelled engine=sift (baselines and calibration excluded).
type ProfileSummary struct {
	File    string      `json:"file"`
	Samples int         `json:"samples"`
	Flat    []FuncShare `json:"flat"`
	Cum     []FuncShare `json:"cum"`
}

// summarizeProfile reads a CPU profile back and returns its top functions by
// flat and by cumulative share of sift's samples.
func summarizeProfile(file string, top int) (*ProfileSummary, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("bench: reading %s: %w", file, err)
	}
	return summarize(p, file, top), nil
}

func summarize(p *profile.Profile, file string, top int) *ProfileSummary {
	vi := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	flat := map[string]int64{}
	cum := map[string]int64{}
	var total int64
	sum := &ProfileSummary{File: file}
	for _, s := range p.Sample {
		if len(s.Label["engine"]) == 0 || s.Label["engine"][0] != "sift" || vi < 0 {
			continue
		}
		v := s.Value[vi]
		total += v
		sum.Samples++
		seen := map[string]bool{}
		for li, loc := range s.Location {
			for k, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				if harnessFrame(name) {
					continue
				}
				// Line[0] of Location[0] is the innermost (inlined) frame.
				if li == 0 && k == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	sum.Flat = topShares(flat, total, top)
	sum.Cum = topShares(cum, total, top)
	return sum
}

// harnessFrame reports whether a function belongs to the code around the
// timed operation (the CLI, the runner, the contestant wrappers): at 100%
// cumulative share they would crowd out the functions worth reading.
func harnessFrame(name string) bool {
	for _, p := range []string{"main.", "github.com/spf13/cobra.", "github.com/nodesift/sift/bench.",
		"runtime.main", "runtime/pprof.", "testing.", "runtime.goexit"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func topShares(m map[string]int64, total int64, top int) []FuncShare {
	if total == 0 {
		return nil
	}
	out := make([]FuncShare, 0, len(m))
	for f, v := range m {
		out = append(out, FuncShare{Func: f, Share: float64(v) / float64(total)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Func < out[j].Func
	})
	if len(out) > top {
		out = out[:top]
	}
	return out
}
