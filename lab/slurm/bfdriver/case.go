package bfdriver

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"strconv"
	"strings"

	"github.com/nodesift/sift/position"
)

// Case is one input of Slurm's standalone backfill driver: Nodes nodes
// node[01-N] of one socket of 4 cores in one partition "test" that every
// job asks for, the clock at Now, the SchedulerParameters Params and the
// driver's job lines ("job_id prio nodes num_tasks segment_size
// time_limit"); Out is what the driver printed, one line per job:
//
//	<job_id> R <start-now> <end-now> <nodes>
//	<job_id> P <start-now|-> <planned nodes|->
type Case struct {
	Name   string
	Nodes  int
	Now    int64
	Params string
	Jobs   []string
	Out    []string
}

// Generate is a random driver input: 4-32 nodes, 1-40 jobs of 1 node to
// all of them (mostly few), 1-4 tasks a node, priorities with ties, limits
// of 1 minute to 2 days, and at times a non-default bf_resolution,
// bf_window, bf_max_job_test, bf_max_job_start, bf_min_prio_reserve or
// bf_job_part_count_reserve. The clock's phase within an hour varies, as
// slot times are rounded to bf_resolution on absolute time.
func Generate(rng *rand.Rand, name string) *Case {
	c := &Case{Name: name, Nodes: []int{4, 8, 16, 32}[rng.Intn(4)], Now: 1_000_000_000 + rng.Int63n(3600)}
	var params []string
	if rng.Intn(3) == 0 {
		params = append(params, fmt.Sprintf("bf_resolution=%d", []int{1, 30, 60, 120, 300, 600}[rng.Intn(6)]))
	}
	if rng.Intn(5) == 0 {
		params = append(params, fmt.Sprintf("bf_window=%d", []int{10, 30, 60, 120, 240}[rng.Intn(5)]))
	}
	if rng.Intn(6) == 0 {
		params = append(params, fmt.Sprintf("bf_max_job_test=%d", 1+rng.Intn(10)))
	}
	if rng.Intn(8) == 0 {
		params = append(params, fmt.Sprintf("bf_max_job_start=%d", 1+rng.Intn(5)))
	}
	if rng.Intn(8) == 0 {
		params = append(params, fmt.Sprintf("bf_min_prio_reserve=%d", 1+rng.Intn(20)))
	}
	if rng.Intn(8) == 0 {
		params = append(params, fmt.Sprintf("bf_job_part_count_reserve=%d", 1+rng.Intn(5)))
	}
	c.Params = strings.Join(params, ",")
	nj := 1 + rng.Intn(40)
	for i := 0; i < nj; i++ {
		nodes := 1 + rng.Intn(c.Nodes)
		if rng.Intn(2) == 0 {
			nodes = 1 + rng.Intn(max(c.Nodes/4, 1))
		}
		tasks := nodes + rng.Intn(3*nodes+1)
		if rng.Intn(50) == 0 {
			tasks = 4*nodes + 1 // cannot fit: one CPU too many
		}
		limit := 1 + rng.Intn(120)
		switch rng.Intn(10) {
		case 0:
			limit = 1 + rng.Intn(2880)
		case 1:
			limit = []int{5, 10, 15, 30, 60}[rng.Intn(5)]
		}
		c.Jobs = append(c.Jobs, fmt.Sprintf("0 %d %d %d 0 %d", 1+rng.Intn(20), nodes, tasks, limit))
	}
	return c
}

// Read reads cases: a line "case NAME nodes=N now=T [params=P]" starts
// one, "j LINE" adds a driver input line, "r LINE" a driver output line;
// "#" lines and blank lines are comments. Errors are *position.Error with
// the byte offset of the offending line or field.
func Read(r io.Reader) ([]*Case, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var cases []*Case
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b) - off
		}
		line, at := string(b[off:off+end]), off
		off += end + 1
		if line == "" || line[0] == '#' {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		if kind != "case" && len(cases) == 0 {
			return nil, position.NewError(at, fmt.Sprintf("%q before the first case", kind))
		}
		switch kind {
		case "case":
			f := strings.Fields(rest)
			if len(f) == 0 {
				return nil, position.NewError(at, "case without a name")
			}
			c := &Case{Name: f[0]}
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				var err error
				switch k {
				case "nodes":
					c.Nodes, err = strconv.Atoi(v)
				case "now":
					c.Now, err = strconv.ParseInt(v, 10, 64)
				case "params":
					c.Params = v
				default:
					err = fmt.Errorf("unknown key %q", k)
				}
				if err != nil {
					e := position.NewError(at+strings.Index(line, kv), err.Error())
					e.Err = err
					return nil, e
				}
			}
			cases = append(cases, c)
		case "j":
			c := cases[len(cases)-1]
			c.Jobs = append(c.Jobs, rest)
		case "r":
			c := cases[len(cases)-1]
			c.Out = append(c.Out, rest)
		default:
			return nil, position.NewError(at, fmt.Sprintf("unknown line kind %q", kind))
		}
	}
	return cases, nil
}

// Write writes cases in the format Read reads.
func Write(w io.Writer, cases []*Case) {
	for _, c := range cases {
		fmt.Fprintf(w, "case %s nodes=%d now=%d", c.Name, c.Nodes, c.Now)
		if c.Params != "" {
			fmt.Fprintf(w, " params=%s", c.Params)
		}
		fmt.Fprintln(w)
		for _, j := range c.Jobs {
			fmt.Fprintln(w, "j", j)
		}
		for _, o := range c.Out {
			fmt.Fprintln(w, "r", o)
		}
	}
}
