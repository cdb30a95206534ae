package sched

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/position"
	"github.com/nodesift/sift/select/job"
)

// FileJob is one job of a sift jobs file (see the README's "The sift jobs
// file"). Times are Unix seconds or RFC 3339 / Slurm's
// YYYY-MM-DDTHH:MM:SS (UTC) strings.
type FileJob struct {
	ID      uint32 `json:"id"`
	Name    string `json:"name"`
	User    string `json:"user"`
	Account string `json:"account"`
	QOS     string `json:"qos"`
	// Partition is one partition or a comma-separated list, as sbatch -p.
	Partition string `json:"partition"`
	// Priority is the job's priority; absent, the scheduler's FIFO one.
	Priority *uint32 `json:"priority"`
	// Hold submits the job held (priority 0, JobHeldUser).
	Hold bool `json:"hold"`
	// Nice is sbatch --nice (may be negative): priority/multifactor and
	// priority/basic lower the job's priority by it.
	Nice int32 `json:"nice"`
	// Submit, Begin, Start and End are the submit time, earliest start,
	// and a running job's start and end.
	Submit FileTime `json:"submit"`
	Begin  FileTime `json:"begin"`
	Start  FileTime `json:"start"`
	End    FileTime `json:"end"`
	// TimeLimit and TimeMin are Slurm time values (min, h:m:s, d-h:m:s,
	// UNLIMITED).
	TimeLimit string `json:"time_limit"`
	TimeMin   string `json:"time_min"`
	// State is pending (the default), running, completed, failed,
	// cancelled, timeout or preempted.
	State string `json:"state"`
	// Nodes are a running job's nodes, a Slurm hostlist.
	Nodes string `json:"nodes"`
	// Request is the resource request in `sift select --job` syntax.
	Request string `json:"request"`
	// Dependency is sbatch --dependency: type:id[:id...] terms joined by
	// "," (all) or "?" (any); types after, afterany, afterok, afternotok,
	// singleton.
	Dependency string `json:"dependency"`
	// NoRequeue is sbatch --no-requeue: preemption in REQUEUE mode kills
	// the job instead.
	NoRequeue bool `json:"no_requeue"`
	// Reservation is sbatch --reservation: the advance reservation the
	// job runs in.
	Reservation string `json:"reservation"`
}

// FileTime is a time in a jobs file: Unix seconds (0: not set).
type FileTime int64

// UnmarshalJSON reads a number of seconds or a time string.
func (t *FileTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*t = 0
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := ParseTimeValue(s)
		*t = FileTime(v)
		return err
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("time %s: expected Unix seconds or a date", b)
	}
	*t = FileTime(n)
	return nil
}

// ParseTimeValue reads Unix seconds, RFC 3339, or Slurm's
// YYYY-MM-DDTHH:MM[:SS] taken as UTC.
func ParseTimeValue(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix(), nil
		}
	}
	return 0, fmt.Errorf("time %q: expected Unix seconds, RFC 3339 or YYYY-MM-DDTHH:MM:SS", position.Clip(s))
}

// JobFileError is a jobs file that cannot be read: Offset is the byte
// where the offending JSON value (or job) starts.
type JobFileError struct {
	position.Pos
	// Index is the job's (or with Resv, the reservation's) position in
	// the file (-1 for the file's form).
	Index int
	Resv  bool
	Err   error
}

// Error says where and what.
func (e *JobFileError) Error() string {
	switch {
	case e.Index < 0:
		return fmt.Sprintf("jobs file, byte %d: %v", e.Offset, e.Err)
	case e.Resv:
		return fmt.Sprintf("jobs file, reservation %d (byte %d): %v", e.Index+1, e.Offset, e.Err)
	}
	return fmt.Sprintf("jobs file, job %d (byte %d): %v", e.Index+1, e.Offset, e.Err)
}

// Unwrap returns the problem.
func (e *JobFileError) Unwrap() error { return e.Err }

// ParseJobFile reads a jobs file: {"jobs": [FileJob, ...]}, and its
// optional "reservations" (see ParseReservations). Unknown keys are
// refused, so a misspelt key does not pass silently.
func ParseJobFile(data []byte) ([]FileJob, []int, error) {
	var jobs []FileJob
	offs, _, err := parseFile(data, &jobs, nil)
	return jobs, offs, err
}

// ParseReservations reads the "reservations" of a jobs file, with the byte
// offset of each.
func ParseReservations(data []byte) ([]FileReservation, []int, error) {
	var resvs []FileReservation
	_, offs, err := parseFile(data, nil, &resvs)
	return resvs, offs, err
}

// parseFile reads a jobs file's "jobs" into jobs and its "reservations"
// into resvs (either may be nil: that list is checked as JSON only) and
// returns the byte offset of each entry.
func parseFile(data []byte, jobs *[]FileJob, resvs *[]FileReservation) (jobOffs, resvOffs []int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) ([]int, []int, error) {
		off := int(dec.InputOffset())
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		return nil, nil, &JobFileError{Pos: position.Pos{Offset: off}, Index: -1, Err: err}
	}
	expect := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("expected %q", want)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return fail(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		if key != "jobs" && key != "reservations" {
			return fail(fmt.Errorf("unknown key %q (expected \"jobs\" or \"reservations\")", tok))
		}
		if seen[key] {
			return fail(fmt.Errorf("%q given twice", key))
		}
		seen[key] = true
		if err := expect('['); err != nil {
			return fail(err)
		}
		n := 0
		for dec.More() {
			off := int(dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fail(err)
			}
			// InputOffset is before the separating comma and spaces.
			for off < len(data) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\t' || data[off] == '\r') {
				off++
			}
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			if key == "jobs" {
				var fj FileJob
				if err := d.Decode(&fj); err != nil {
					return nil, nil, &JobFileError{Pos: position.Pos{Offset: off}, Index: n, Err: err}
				}
				if jobs != nil {
					*jobs = append(*jobs, fj)
				}
				jobOffs = append(jobOffs, off)
			} else {
				var fr FileReservation
				if err := d.Decode(&fr); err != nil {
					return nil, nil, &JobFileError{Pos: position.Pos{Offset: off}, Index: n, Resv: true, Err: err}
				}
				if resvs != nil {
					*resvs = append(*resvs, fr)
				}
				resvOffs = append(resvOffs, off)
			}
			n++
		}
		if err := expect(']'); err != nil {
			return fail(err)
		}
	}
	if err := expect('}'); err != nil {
		return fail(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(errors.New("data after the jobs object"))
	}
	if !seen["jobs"] {
		return fail(errors.New(`no "jobs" key`))
	}
	return jobOffs, resvOffs, nil
}

// ParseDependency reads sbatch --dependency: terms joined by "," (all must
// hold) or "?" (any suffices), each type:id[:id...] or singleton.
func ParseDependency(s string) ([]Dependency, bool, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false, nil
	}
	any := strings.Contains(s, "?")
	if any && strings.Contains(s, ",") {
		return nil, false, errors.New("dependency: \",\" and \"?\" cannot be mixed")
	}
	sep := ","
	if any {
		sep = "?"
	}
	var out []Dependency
	for _, term := range strings.Split(s, sep) {
		kind, ids, _ := strings.Cut(strings.TrimSpace(term), ":")
		var k DepKind
		switch strings.ToLower(kind) {
		case "after":
			k = After
		case "afterany":
			k = AfterAny
		case "afterok":
			k = AfterOK
		case "afternotok":
			k = AfterNotOK
		case "singleton":
			if ids != "" {
				return nil, false, fmt.Errorf("dependency %q: singleton takes no job id", position.Clip(term))
			}
			out = append(out, Dependency{Kind: Singleton})
			continue
		default:
			return nil, false, fmt.Errorf("dependency %q: expected after, afterany, afterok, afternotok or singleton", position.Clip(term))
		}
		if ids == "" {
			return nil, false, fmt.Errorf("dependency %q: no job id", position.Clip(term))
		}
		for _, id := range strings.Split(ids, ":") {
			n, err := strconv.ParseUint(id, 10, 32)
			if err != nil || n == 0 {
				return nil, false, fmt.Errorf("dependency %q: job id %q", position.Clip(term), position.Clip(id))
			}
			out = append(out, Dependency{Kind: k, Job: uint32(n)})
		}
	}
	return out, any, nil
}

var fileStates = map[string]State{"": Pending, "pending": Pending, "pd": Pending, "running": Running, "r": Running,
	"completed": Completed, "cd": Completed, "failed": Failed, "f": Failed, "cancelled": Cancelled, "ca": Cancelled,
	"timeout": Timeout, "to": Timeout, "preempted": Preempted, "pr": Preempted}

// Load puts the jobs of a jobs file into q at now: finished and running
// jobs first (running ones on their nodes until their end), then pending
// ones in file order. A job without a partition goes to defPart. offs are
// the jobs' byte offsets from ParseJobFile (may be nil). A pending job the
// Limits hook refuses is left out, as sbatch would fail, and listed in
// refused (each a *JobError wrapping a *RefusedError).
func Load(q *Queue, jobs []FileJob, offs []int, defPart string, now int64) (refused []error, err error) {
	type pend struct {
		j    *Job
		held bool
		idx  int
	}
	var pending []pend
	for pass := 0; pass < 2; pass++ {
		for i, fj := range jobs {
			off := 0
			if i < len(offs) {
				off = offs[i]
			}
			fail := func(err error) ([]error, error) {
				return refused, &JobFileError{Pos: position.Pos{Offset: off}, Index: i, Err: err}
			}
			st, ok := fileStates[strings.ToLower(fj.State)]
			if !ok {
				return fail(fmt.Errorf("state %q: expected pending, running, completed, failed, cancelled, timeout or preempted", position.Clip(fj.State)))
			}
			if (pass == 0) == (st == Pending) {
				continue
			}
			j, err := fileJob(q, fj, defPart)
			if err != nil {
				return fail(err)
			}
			j.NoRequeue = fj.NoRequeue
			switch st {
			case Pending:
				pending = append(pending, pend{j, fj.Hold, i})
				continue
			case Running:
				if fj.Start == 0 || fj.End == 0 {
					return fail(errors.New("a running job needs start and end"))
				}
				if j.Nodes, err = nodeSet(q, fj.Nodes); err != nil {
					return fail(err)
				}
				if err := q.AddRunning(j); err != nil {
					return fail(err)
				}
			default:
				j.State = st
				if err := q.AddFinished(j); err != nil {
					return fail(err)
				}
			}
		}
	}
	for _, p := range pending {
		if p.held {
			p.j.HeldByUser = true
		}
		submit := p.j.Submit
		if submit == 0 {
			submit = now
		}
		if err := q.Submit(p.j, p.held, submit); err != nil {
			var re *RefusedError
			if errors.As(err, &re) {
				refused = append(refused, err)
				continue
			}
			off := 0
			if p.idx < len(offs) {
				off = offs[p.idx]
			}
			return refused, &JobFileError{Pos: position.Pos{Offset: off}, Index: p.idx, Err: err}
		}
	}
	return refused, nil
}

// fileJob builds a job record from a file entry.
func fileJob(q *Queue, fj FileJob, defPart string) (*Job, error) {
	if fj.ID == 0 {
		return nil, errors.New("no job id")
	}
	spec := fj.Request
	if strings.TrimSpace(spec) == "" {
		spec = "nodes=1"
	}
	req, err := job.ParseSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("request %q: %w", position.Clip(spec), err)
	}
	part := fj.Partition
	if part == "" {
		part = req.Partition
	}
	if r, ok := q.Reservation(fj.Reservation); ok && part == "" {
		// A job naming a reservation of a partition runs there.
		part = r.Partition
	}
	if part == "" {
		part = defPart
	}
	if part == "" {
		return nil, errors.New("no partition given and no default partition")
	}
	j := &Job{ID: fj.ID, Name: fj.Name, User: fj.User, Account: fj.Account, QOS: fj.QOS, Reservation: fj.Reservation, Partitions: strings.Split(part, ","),
		Submit: int64(fj.Submit), Begin: int64(fj.Begin), Start: int64(fj.Start), End: int64(fj.End), Request: req, TimeLimit: req.TimeLimit, Nice: fj.Nice}
	if fj.Priority != nil {
		j.Priority = *fj.Priority
	}
	if fj.TimeLimit != "" {
		if j.TimeLimit, err = job.ParseTime(fj.TimeLimit); err != nil {
			return nil, fmt.Errorf("time_limit %q: %w", position.Clip(fj.TimeLimit), err)
		}
	}
	if fj.TimeMin != "" {
		if j.TimeMin, err = job.ParseTime(fj.TimeMin); err != nil {
			return nil, fmt.Errorf("time_min %q: %w", position.Clip(fj.TimeMin), err)
		}
	}
	req.TimeLimit = j.TimeLimit
	if j.Deps, j.DepsAny, err = ParseDependency(fj.Dependency); err != nil {
		return nil, err
	}
	return j, nil
}

// nodeSet resolves a hostlist against q's cluster.
func nodeSet(q *Queue, list string) (*roaring.Bitmap, error) {
	l, err := hostlist.Parse(hostlist.Slurm, list)
	if err != nil {
		return nil, fmt.Errorf("nodes %q: %w", position.Clip(list), err)
	}
	out := roaring.New()
	var unknown string
	l.Each(func(name string) bool {
		id, ok := q.cl.Snap.ID(name)
		if !ok {
			unknown = name
			return false
		}
		out.Add(id)
		return true
	})
	if unknown != "" {
		return nil, fmt.Errorf("nodes %q: unknown node %q", position.Clip(list), position.Clip(unknown))
	}
	if out.IsEmpty() {
		return nil, fmt.Errorf("nodes %q: no nodes", position.Clip(list))
	}
	return out, nil
}

// FileReservation is one advance reservation of a jobs file (see the
// README's "The sift jobs file"), as `scontrol create reservation` takes
// it.
type FileReservation struct {
	Name string `json:"name"`
	// Nodes is a Slurm hostlist; NodeCount the number of nodes to pick
	// when Nodes is empty.
	Nodes     string `json:"nodes"`
	NodeCount int    `json:"node_count"`
	// Start, and End or Duration (a Slurm time value).
	Start    FileTime `json:"start"`
	End      FileTime `json:"end"`
	Duration string   `json:"duration"`
	// Users and Accounts are comma-separated lists.
	Users     string `json:"users"`
	Accounts  string `json:"accounts"`
	Partition string `json:"partition"`
	// Flags are comma-separated: MAINT, IGNORE_JOBS, FLEX, ANY_NODES.
	Flags string `json:"flags"`
}

// AddFileReservations makes the reservations of a jobs file in q at now,
// before Load puts its jobs in (so that running jobs inside them are
// taken as they are). offs are their byte offsets from ParseReservations;
// a reservation of a node count without a partition picks its nodes in
// defPart, as slurmctld uses its default partition.
func AddFileReservations(q *Queue, resvs []FileReservation, offs []int, defPart string, now int64) error {
	for i, fr := range resvs {
		off := 0
		if i < len(offs) {
			off = offs[i]
		}
		fail := func(err error) error {
			return &JobFileError{Pos: position.Pos{Offset: off}, Index: i, Resv: true, Err: err}
		}
		r := &Reservation{Name: fr.Name, NodeCount: fr.NodeCount, Start: int64(fr.Start), End: int64(fr.End), Partition: fr.Partition}
		if r.Partition == "" && fr.Nodes == "" {
			r.Partition = defPart
		}
		if fr.Duration != "" {
			d, err := job.ParseTime(fr.Duration)
			if err != nil || d == job.Unlimited {
				return fail(fmt.Errorf("duration %q: expected a Slurm time value", position.Clip(fr.Duration)))
			}
			if fr.End != 0 {
				return fail(errors.New("both end and duration given"))
			}
			r.End = r.Start + int64(d/time.Second)
		}
		var err error
		if r.Flags, err = ParseResvFlags(fr.Flags); err != nil {
			return fail(err)
		}
		if fr.Nodes != "" {
			if r.Nodes, err = nodeSet(q, fr.Nodes); err != nil {
				return fail(err)
			}
		}
		list := func(s string) []string {
			return strings.FieldsFunc(s, func(c rune) bool { return c == ',' || c == ' ' })
		}
		r.Users, r.Accounts = list(fr.Users), list(fr.Accounts)
		if err := q.AddReservation(r, now); err != nil {
			return fail(err)
		}
	}
	return nil
}
