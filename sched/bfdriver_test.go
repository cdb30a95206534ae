package sched

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/lab/slurm/bfdriver"
)

// bfDriverKnown are the driver inputs where sift's answer differs from
// Slurm's, with the cause (docs/COMPATIBILITY.md, "Slurm's backfill
// driver").
var bfDriverKnown = map[string]string{}

// TestSlurmBackfillDriver replays what Slurm's own backfill driver
// (testsuite/slurm_unit/backfill: the real _attempt_backfill and
// select/cons_tres, no main pass) printed for the job lines of its check
// tests and expect test7.22 (slurm-tests.txt) and for 2,000 seeded random
// inputs (random-1.txt.gz), recorded by lab/slurm/bfdriver (README there),
// through sift's BackfillPass with the same SchedulerParameters: every
// job's state, start, end and nodes, or its planned start and nodes, must
// be the driver's, but for the inputs listed in bfDriverKnown.
func TestSlurmBackfillDriver(t *testing.T) {
	var cases []*bfdriver.Case
	for _, name := range []string{"slurm-tests.txt", "random-1.txt.gz"} {
		cs, err := readBFDriverFile(filepath.Join("testdata", "bfdriver", name))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	same, known := 0, 0
	for _, c := range cases {
		got, err := bfDriverReplay(t, c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		diff := bfDriverDiff(c.Out, got)
		_, isKnown := bfDriverKnown[c.Name]
		switch {
		case diff == "" && isKnown:
			t.Errorf("%s: listed as a known difference but agrees with the driver now", c.Name)
		case diff == "":
			same++
		case isKnown:
			known++
		default:
			t.Errorf("%s (nodes=%d now=%d params=%q): %s", c.Name, c.Nodes, c.Now, c.Params, diff)
		}
	}
	t.Logf("%d driver inputs: %d identical, %d known differences", len(cases), same, known)
}

func readBFDriverFile(path string) ([]*bfdriver.Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	return bfdriver.Read(r)
}

// bfDriverReplay runs c through sift and prints each job as the driver's
// printer does.
func bfDriverReplay(t *testing.T, c *bfdriver.Case) ([]string, error) {
	cfg, err := ParseSchedulerParameters(DefaultConfig(), c.Params)
	if err != nil {
		return nil, err
	}
	q := slurmUnitQueue(t, c.Nodes, cfg)
	var jobs []*Job
	last := uint32(0)
	for _, line := range c.Jobs {
		f := strings.Fields(line)
		if len(f) < 6 {
			return nil, fmt.Errorf("job line %q: want 6 fields", line)
		}
		var v [6]int
		for i := range v {
			if v[i], err = strconv.Atoi(f[i]); err != nil {
				return nil, fmt.Errorf("job line %q: %w", line, err)
			}
		}
		id := uint32(v[0])
		if id == 0 {
			last++
			id = last
		} else {
			last = max(last, id)
		}
		jobs = append(jobs, slurmUnitJob(t, q, id, uint32(v[1]), v[2], v[3], v[5], c.Now))
	}
	q.BackfillPass(c.Now, &Pass{})
	names := func(j *Job, running bool) string {
		b := j.PlannedNodes
		if running {
			b = j.Nodes
		}
		if b == nil || b.IsEmpty() {
			return "-"
		}
		return hostlist.Compress(hostlist.Slurm, nodeNames(q.cl, b))
	}
	var out []string
	for _, j := range jobs {
		switch {
		case j.State == Running:
			out = append(out, fmt.Sprintf("%d R %d %d %s", j.ID, j.Start-c.Now, j.End-c.Now, names(j, true)))
		case j.Start != 0:
			out = append(out, fmt.Sprintf("%d P %d %s", j.ID, j.Start-c.Now, names(j, false)))
		default:
			out = append(out, fmt.Sprintf("%d P - %s", j.ID, names(j, false)))
		}
	}
	return out, nil
}

// bfDriverDiff names the first job lines that differ ("" when none do).
func bfDriverDiff(want, got []string) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d jobs, driver printed %d", len(got), len(want))
	}
	var d []string
	for i := range want {
		if want[i] != got[i] && len(d) < 3 {
			d = append(d, fmt.Sprintf("driver %q, sift %q", want[i], got[i]))
		}
	}
	return strings.Join(d, "; ")
}
