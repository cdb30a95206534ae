package bench

import (
	"path"
	"strings"
)

// Suite is one benchmarked operation that can be set up at any cluster size.
// Suites are data: adding one (select, will-run, a scheduling pass) is one
// entry in Registry.
type Suite struct {
	// Name is slash-separated, most general part first ("evaluate/slurm/3-leaf").
	Name string
	// Sizes are the node counts run when the user does not choose any.
	Sizes []int
	// SizeFree marks an operation that does not depend on the cluster (a
	// compilation): it runs once and is reported with 0 nodes.
	SizeFree bool
	// Tolerance is the smallest drop of its ratio the regression gate
	// reports for this suite (0: the run's threshold). A suite whose time
	// depends on background work, which a loaded machine may or may not have
	// room for, sets it so that only large slowdowns fail.
	Tolerance float64
	// OnRequest keeps the suite out of a run that names no suite: it runs
	// only when a pattern selects it (the peer suites, which double a
	// default run's time).
	OnRequest bool
	// Setup builds the inventory and everything the operation needs; nothing
	// it does is timed.
	Setup func(nodes int) (*Case, error)
}

// Case is a suite set up at one size.
type Case struct {
	// Op is one operation of sift's engine; the runner times it.
	Op func()
	// Bytes is the input size one Op processes, for MB/s (0: not reported).
	Bytes int64
	// Baselines are the same operation done another way, timed alongside.
	Baselines []Baseline
	// Recorded holds, per name, the time in ns of the same operation done
	// elsewhere and recorded, not timed in this run (a peer's own code on the
	// same data); reports show sift's ratio to it beside the in-run ones.
	Recorded map[string]float64
	// Verify runs after timing and reports an error unless sift and every
	// baseline gave the same answer.
	Verify func() error
	// Matches, when set, returns how many nodes sift's answer holds, read
	// after Verify; reports show it.
	Matches func() int
}

// Baseline is another way of doing a case's operation.
type Baseline struct {
	Name string
	Op   func()
}

// Select returns the suites whose name matches pattern: a glob (path.Match)
// or a prefix, either of them applied at any '/' boundary of the name, so
// "evaluate", "evaluate/slurm/*" and "*/10-leaf" all work. An empty pattern
// selects every suite but those run on request only.
func Select(suites []Suite, pattern string) []Suite {
	var out []Suite
	for _, s := range suites {
		if pattern == "" && !s.OnRequest || pattern != "" && nameMatches(pattern, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

func nameMatches(pattern, name string) bool {
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		prefix := name[:i]
		if prefix == pattern {
			return true
		}
		if ok, err := path.Match(pattern, prefix); err == nil && ok {
			return true
		}
	}
	return strings.HasPrefix(name, pattern)
}
