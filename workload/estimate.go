package workload

import (
	"fmt"
	"strings"
)

// EstimatePolicy says how a reader fills a job's TimeLimit when its source
// records none: the Cirrus sacct subset has no Timelimit column, sacct
// prints Partition_Limit or UNLIMITED for jobs that set none, and SWF logs
// write -1. Backfilling plans with the limit, so a replay needs one.
type EstimatePolicy uint8

// The estimate policies.
const (
	// EstimateNone leaves TimeLimit Unknown; the simulator decides.
	EstimateNone EstimatePolicy = iota
	// EstimateRunTime uses the job's own run time, rounded up to a whole
	// minute (Slurm's limits are minutes; at least one): perfect user
	// estimates, the best case for backfilling.
	EstimateRunTime
	// EstimateFixed uses Estimate.Fixed seconds for every such job: the
	// partition's or QOS's MaxTime, what Slurm gives a job that asks for
	// nothing when DefaultTime is unset.
	EstimateFixed
)

// Estimate is an EstimatePolicy with its parameter.
type Estimate struct {
	Policy EstimatePolicy
	// Fixed is the limit in seconds for EstimateFixed.
	Fixed int64
}

// ParseEstimate reads an estimate policy as a command line writes it:
// "none", "runtime", or "fixed:TIME" with TIME in Slurm's time formats
// ("96:00:00", "4-00:00:00", minutes "5760").
func ParseEstimate(s string) (Estimate, error) {
	switch {
	case s == "none" || s == "":
		return Estimate{}, nil
	case s == "runtime":
		return Estimate{Policy: EstimateRunTime}, nil
	case strings.HasPrefix(s, "fixed:"):
		secs, ok := slurmDuration(s[len("fixed:"):], true)
		if !ok || secs <= 0 {
			return Estimate{}, fmt.Errorf("estimate %q: want fixed:TIME with TIME like 96:00:00, 4-00:00:00 or minutes: %w", s, ErrSyntax)
		}
		return Estimate{Policy: EstimateFixed, Fixed: secs}, nil
	}
	return Estimate{}, fmt.Errorf("estimate %q: want none, runtime or fixed:TIME: %w", s, ErrSyntax)
}

// String returns the policy as ParseEstimate reads it.
func (e Estimate) String() string {
	switch e.Policy {
	case EstimateRunTime:
		return "runtime"
	case EstimateFixed:
		return "fixed:" + formatDuration(e.Fixed)
	}
	return "none"
}

// limit returns the time limit the policy gives a job that ran run seconds.
func (e Estimate) limit(run int64) int64 {
	switch e.Policy {
	case EstimateRunTime:
		return max(1, (run+59)/60) * 60
	case EstimateFixed:
		return e.Fixed
	}
	return Unknown
}

// apply fills the TimeLimit of every job that has none.
func (e Estimate) apply(jobs []Job) {
	if e.Policy == EstimateNone {
		return
	}
	for i := range jobs {
		if jobs[i].TimeLimit == Unknown {
			jobs[i].TimeLimit = e.limit(jobs[i].Run)
		}
	}
}

// formatDuration writes seconds as Slurm does: [D-]HH:MM:SS.
func formatDuration(s int64) string {
	d, h, m, sec := s/86400, s/3600%24, s/60%60, s%60
	if d > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", d, h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
}

// slurmDuration reads a duration in the forms Slurm prints and accepts
// (time_str2secs in src/common/parse_time.c): "MM", "MM:SS", "HH:MM:SS",
// "D-HH", "D-HH:MM", "D-HH:MM:SS", with an optional fraction of a second
// after SS that sacct prints for Elapsed of short steps (dropped). A bare
// number is minutes when minutes is true (Timelimit) and seconds otherwise
// (ElapsedRaw is read elsewhere; this is for "Elapsed" printed as plain
// seconds by some tools).
func slurmDuration(s string, minutes bool) (int64, bool) {
	if s == "" || len(s) > 32 {
		return 0, false
	}
	var days int64
	if i := strings.IndexByte(s, '-'); i >= 0 {
		d, ok := digits(s[:i])
		if !ok {
			return 0, false
		}
		days, s = d, s[i+1:]
		parts := strings.Split(s, ":")
		if len(parts) > 3 {
			return 0, false
		}
		var hms [3]int64
		for k, p := range parts {
			if k == 2 {
				p, _, _ = strings.Cut(p, ".")
			}
			v, ok := digits(p)
			if !ok {
				return 0, false
			}
			hms[k] = v
		}
		return days*86400 + hms[0]*3600 + hms[1]*60 + hms[2], true
	}
	parts := strings.Split(s, ":")
	var v [3]int64
	for k, p := range parts {
		if k == len(parts)-1 {
			p, _, _ = strings.Cut(p, ".")
		}
		n, ok := digits(p)
		if !ok || k > 2 {
			return 0, false
		}
		v[k] = n
	}
	switch len(parts) {
	case 1:
		if minutes {
			return v[0] * 60, true
		}
		return v[0], true
	case 2:
		return v[0]*60 + v[1], true
	}
	return v[0]*3600 + v[1]*60 + v[2], true
}

// digits reads a non-empty run of decimal digits that fits in 12 of them.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 12 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	return v, true
}
