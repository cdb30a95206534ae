package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodesift/sift/position"
)

// sacctCol is a column ReadSacct understands.
type sacctCol uint8

const (
	colIgnored sacctCol = iota
	colJobID
	colJobIDRaw
	colUser
	colGroup
	colAccount
	colPartition
	colQOS
	colSubmit
	colEligible
	colStart
	colEnd
	colElapsed
	colElapsedRaw
	colTimelimit
	colTimelimitRaw
	colNNodes
	colNCPUS
	colReqCPUS
	colReqMem
	colReqNodes
	colState
	colAllocTRES
	colReqTRES
	numCols
)

// sacctColumns maps sacct's field names (as --format takes them and the
// header line prints them; matched without regard to case) to columns.
var sacctColumns = map[string]sacctCol{
	"jobid": colJobID, "jobidraw": colJobIDRaw, "user": colUser, "group": colGroup,
	"account": colAccount, "partition": colPartition, "qos": colQOS,
	"submit": colSubmit, "eligible": colEligible, "start": colStart, "end": colEnd,
	"elapsed": colElapsed, "elapsedraw": colElapsedRaw,
	"timelimit": colTimelimit, "timelimitraw": colTimelimitRaw,
	"nnodes": colNNodes, "allocnodes": colNNodes, "ncpus": colNCPUS, "alloccpus": colNCPUS,
	"reqcpus": colReqCPUS, "reqmem": colReqMem, "reqnodes": colReqNodes, "state": colState,
	"alloctres": colAllocTRES, "reqtres": colReqTRES,
}

// SacctFormat is a --format list holding every field ReadSacct uses, for a
// site that exports its own month:
//
//	sacct -a -X -P -S 2024-01-01 -E 2024-02-01 -o $(sift's SacctFormat)
const SacctFormat = "JobID,JobIDRaw,User,Group,Account,Partition,QOS,Submit,Eligible,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,ReqCPUS,ReqMem,ReqNodes,State,AllocTRES,ReqTRES"

// ReadSacct reads the output of `sacct --parsable2` (fields separated by
// '|'), of `sacct --parsable` (a trailing '|' too) or of `sacct -P
// --delimiter=,`, plain or gzip-compressed. The first line names the fields
// (sacct prints it unless --noheader); the separator is the first '|' or
// ',' in it. Field names are matched without regard to case, in any order;
// unknown fields are ignored. A CSV with those field names, such as the
// Cirrus subset, is read the same way (no quoting: sacct writes none).
//
// The fields it uses, and how (SacctFormat lists them):
//
//   - JobIDRaw → ID; JobID → Name, and ID when JobIDRaw is absent (its
//     leading number: an array task "5312850_12" shares its array's number,
//     so Name is the unique one). Job steps ("123.batch", "123.extern",
//     "123.0") are Skipped.Steps: the allocation's own line is the job.
//   - Submit → Submit, relative to the earliest submit (Trace.StartTime);
//     Start → Wait (Start − Submit); End − Start, or Elapsed/ElapsedRaw, →
//     Run. Eligible is checked and not kept. Times are Unix seconds (sacct
//     with SLURM_TIME_FORMAT=%s) or sacct's default "2024-01-31T09:15:00" in
//     Options.Location (UTC when nil); "Unknown" and "None" are no time.
//   - Timelimit (minutes: "2-03:04:05", "96:00:00", "UNLIMITED",
//     "Partition_Limit") or TimelimitRaw (minutes) → TimeLimit; UNLIMITED
//     and Partition_Limit leave it Unknown for Options.Estimate to fill.
//   - ReqCPUS, else ReqTRES cpu, else NCPUS → Procs; NCPUS or AllocTRES
//     cpu → AllocProcs; ReqNodes, else NNodes, else ReqTRES node → Nodes.
//   - ReqMem ("4000M", "4Gn" per node, "2Gc" per CPU: older sacct) →
//     MemKB per processor.
//   - State → Status: COMPLETED, FAILED (and OUT_OF_MEMORY, NODE_FAIL,
//     BOOT_FAIL, DEADLINE as failed), TIMEOUT, CANCELLED ("CANCELLED by
//     123"). Cancelled jobs are Skipped.Cancelled unless
//     Options.KeepCancelled and they started. PENDING, RUNNING, REQUEUED
//     and other unfinished jobs have no run time: Skipped.Unusable.
//   - User, Group, Account, Partition, QOS → the Job's strings.
//
// Errors are *ParseError, wrapped.
func ReadSacct(r io.Reader, name string, opt Options) (*Trace, error) {
	br, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	p := sacctParser{name: name, opt: opt, loc: opt.Location}
	if p.loc == nil {
		p.loc = time.UTC
	}
	if err := p.run(br); err != nil {
		return nil, err
	}
	return p.finish(), nil
}

type sacctParser struct {
	name    string
	opt     Options
	loc     *time.Location
	sep     byte
	cols    []sacctCol
	has     [numCols]bool
	off     int
	line    int
	jobs    []Job
	skipped Skipped
	strs    map[string]string
}

func (p *sacctParser) run(br *bufio.Reader) error {
	if err := eachLine(br, p.name, &p.line, &p.off, p.parseLine); err != nil {
		return err
	}
	if p.cols == nil {
		return &ParseError{File: p.name, Line: max(p.line, 1), Pos: posAt(p.off), Msg: "no header line naming the fields (run sacct without --noheader)", Err: ErrSyntax}
	}
	return nil
}

func (p *sacctParser) parseLine(b []byte) error {
	b = bytes.TrimRight(b, "\r\n")
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if p.cols == nil {
		return p.header(b)
	}
	return p.row(b)
}

func (p *sacctParser) header(b []byte) error {
	i := bytes.IndexAny(b, "|,")
	if i < 0 {
		return p.errAt(0, "", "header line has no '|' or ',' between field names", ErrSyntax)
	}
	p.sep = b[i]
	b = bytes.TrimSuffix(b, []byte{p.sep}) // --parsable ends every line with one
	at := 0
	for _, f := range bytes.Split(b, []byte{p.sep}) {
		c := sacctColumns[strings.ToLower(string(bytes.TrimSpace(f)))]
		if c != colIgnored && p.has[c] {
			return p.errAt(at, "", fmt.Sprintf("field %q named twice", f), ErrSyntax)
		}
		p.has[c] = true
		p.cols = append(p.cols, c)
		at += len(f) + 1
	}
	switch {
	case !p.has[colJobID] && !p.has[colJobIDRaw]:
		return p.errAt(0, "", "header names no JobID or JobIDRaw field", ErrSyntax)
	case !p.has[colSubmit]:
		return p.errAt(0, "", "header names no Submit field", ErrSyntax)
	case !p.has[colElapsed] && !p.has[colElapsedRaw] && !(p.has[colStart] && p.has[colEnd]):
		return p.errAt(0, "", "header names no Elapsed, ElapsedRaw, or Start and End fields", ErrSyntax)
	case !p.has[colNCPUS] && !p.has[colReqCPUS] && !p.has[colAllocTRES] && !p.has[colReqTRES]:
		return p.errAt(0, "", "header names no NCPUS, ReqCPUS, AllocTRES or ReqTRES field", ErrSyntax)
	}
	return nil
}

// sacctRow is one line's values of the columns ReadSacct uses, with their
// byte offsets in the line.
type sacctRow struct {
	val [numCols][]byte
	at  [numCols]int
}

func (p *sacctParser) row(b []byte) error {
	var r sacctRow
	start, n := 0, 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && b[i] != p.sep {
			continue
		}
		if n < len(p.cols) {
			c := p.cols[n]
			r.val[c], r.at[c] = b[start:i], start
		} else if !(i == len(b) && start == len(b)) {
			return p.errAt(start, "", fmt.Sprintf("more than the header's %d fields", len(p.cols)), ErrSyntax)
		}
		n++
		start = i + 1
	}
	if n < len(p.cols) {
		return p.errAt(len(b), "", fmt.Sprintf("%d fields, the header names %d", n, len(p.cols)), ErrSyntax)
	}
	return p.job(&r)
}

func (p *sacctParser) job(r *sacctRow) error {
	var j Job
	idText := r.val[colJobID]
	if len(idText) == 0 {
		idText = r.val[colJobIDRaw]
	}
	if bytes.IndexByte(idText, '.') >= 0 || bytes.IndexByte(r.val[colJobIDRaw], '.') >= 0 {
		p.skipped.Steps++
		return nil
	}
	if raw := r.val[colJobIDRaw]; len(raw) > 0 {
		id, ok := digits(string(raw))
		if !ok {
			return p.errAt(r.at[colJobIDRaw], "JobIDRaw", fmt.Sprintf("%q is not a job id", clip(raw)), ErrSyntax)
		}
		j.ID = id
	} else {
		k := 0
		for k < len(idText) && idText[k] >= '0' && idText[k] <= '9' {
			k++
		}
		id, ok := digits(string(idText[:k]))
		if !ok {
			return p.errAt(r.at[colJobID], "JobID", fmt.Sprintf("%q is not a job id", clip(idText)), ErrSyntax)
		}
		j.ID = id
	}
	if len(r.val[colJobID]) > 0 && string(r.val[colJobID]) != strconv.FormatInt(j.ID, 10) {
		j.Name = p.intern(r.val[colJobID])
	}

	submit, err := p.timeField(r, colSubmit, "Submit")
	if err != nil {
		return err
	}
	if _, err := p.timeField(r, colEligible, "Eligible"); err != nil {
		return err
	}
	start, err := p.timeField(r, colStart, "Start")
	if err != nil {
		return err
	}
	end, err := p.timeField(r, colEnd, "End")
	if err != nil {
		return err
	}
	run := int64(Unknown)
	switch {
	case len(r.val[colElapsedRaw]) > 0:
		v, ok := digits(string(r.val[colElapsedRaw]))
		if !ok {
			return p.errAt(r.at[colElapsedRaw], "ElapsedRaw", fmt.Sprintf("%q is not seconds", clip(r.val[colElapsedRaw])), ErrSyntax)
		}
		run = v
	case len(r.val[colElapsed]) > 0:
		v, ok := slurmDuration(string(r.val[colElapsed]), false)
		if !ok {
			return p.errAt(r.at[colElapsed], "Elapsed", fmt.Sprintf("%q is not [D-]HH:MM:SS", clip(r.val[colElapsed])), ErrSyntax)
		}
		run = v
	}
	if start != Unknown && end != Unknown && end >= start && (run == Unknown || run == 0) {
		run = end - start
	}

	j.TimeLimit = Unknown
	if err := p.limitField(r, &j); err != nil {
		return err
	}

	alloc, err := p.count(r, colNCPUS, "NCPUS")
	if err != nil {
		return err
	}
	req, err := p.count(r, colReqCPUS, "ReqCPUS")
	if err != nil {
		return err
	}
	nodes, err := p.count(r, colReqNodes, "ReqNodes")
	if err != nil {
		return err
	}
	allocNodes, err := p.count(r, colNNodes, "NNodes")
	if err != nil {
		return err
	}
	reqTRES, err := p.tres(r, colReqTRES, "ReqTRES")
	if err != nil {
		return err
	}
	allocTRES, err := p.tres(r, colAllocTRES, "AllocTRES")
	if err != nil {
		return err
	}
	alloc = firstPositive(alloc, allocTRES.cpu)
	j.Procs = int(firstPositive(req, reqTRES.cpu, alloc))
	j.AllocProcs = Unknown
	if alloc > 0 {
		j.AllocProcs = int(alloc)
	}
	j.Nodes = int(max(0, firstPositive(nodes, allocNodes, reqTRES.node, allocTRES.node)))

	j.MemKB = Unknown
	if err := p.memField(r, &j, reqTRES.memMB); err != nil {
		return err
	}

	state := string(r.val[colState])
	j.Status = sacctStatus(state)
	j.User = p.intern(r.val[colUser])
	j.Group = p.intern(r.val[colGroup])
	j.Account = p.intern(r.val[colAccount])
	j.Partition = p.intern(r.val[colPartition])
	j.QOS = p.intern(r.val[colQOS])

	p.jobs = keepSacct(p.jobs, &p.skipped, j, submit, start, run, state, p.opt)
	return nil
}

// keepSacct appends j with its submit, run and wait times to jobs, or counts
// in sk why it cannot be replayed: cancelled (unless opt keeps those that
// ran), or without submit, start, run time or processors, or not finished.
// Missing times are Unknown. Both sacct readers end a job here.
func keepSacct(jobs []Job, sk *Skipped, j Job, submit, start, run int64, state string, opt Options) []Job {
	started := start != Unknown
	if j.Status == StatusCancelled && (!opt.KeepCancelled || !started || run == Unknown) {
		sk.Cancelled++
		return jobs
	}
	if submit == Unknown || run == Unknown || !started || j.Procs <= 0 || unfinished(state) {
		sk.Unusable++
		return jobs
	}
	j.Submit = submit
	j.Run = run
	j.Wait = Unknown
	if start >= submit {
		j.Wait = start - submit
	}
	return append(jobs, j)
}

// unfinished reports whether a job's state says it has not ended, so its
// run time is not yet known.
func unfinished(state string) bool {
	for _, s := range []string{"PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED", "REVOKED"} {
		if strings.HasPrefix(state, s) {
			return true
		}
	}
	return state == ""
}

func sacctStatus(state string) Status {
	switch {
	case strings.HasPrefix(state, "COMPLETED"):
		return StatusCompleted
	case strings.HasPrefix(state, "CANCELLED"):
		return StatusCancelled
	case strings.HasPrefix(state, "TIMEOUT"):
		return StatusTimeout
	case strings.HasPrefix(state, "FAILED"), strings.HasPrefix(state, "OUT_OF_MEMORY"),
		strings.HasPrefix(state, "NODE_FAIL"), strings.HasPrefix(state, "BOOT_FAIL"),
		strings.HasPrefix(state, "DEADLINE"), strings.HasPrefix(state, "PREEMPTED"):
		return StatusFailed
	}
	return StatusUnknown
}

// timeField reads a date column: Unix seconds or sacct's %FT%T, Unknown
// when the column is absent, empty, "Unknown" or "None".
func (p *sacctParser) timeField(r *sacctRow, c sacctCol, field string) (int64, error) {
	v := r.val[c]
	switch string(v) {
	case "", "Unknown", "None":
		return Unknown, nil
	}
	if n, ok := digits(string(v)); ok {
		return n, nil
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", string(v), p.loc)
	if err != nil || t.Unix() < 0 {
		return 0, p.errAt(r.at[c], field, fmt.Sprintf("%q is neither Unix seconds nor YYYY-MM-DDTHH:MM:SS", clip(v)), ErrSyntax)
	}
	return t.Unix(), nil
}

func (p *sacctParser) limitField(r *sacctRow, j *Job) error {
	c, field, minutes := colTimelimit, "Timelimit", true
	if len(r.val[colTimelimitRaw]) > 0 {
		c, field = colTimelimitRaw, "TimelimitRaw"
	}
	v := string(r.val[c])
	switch strings.ToUpper(v) {
	case "", "UNLIMITED", "PARTITION_LIMIT", "INFINITE":
		return nil
	}
	var secs int64
	var ok bool
	if c == colTimelimitRaw {
		var m int64
		m, ok = digits(v)
		secs = m * 60
	} else {
		secs, ok = slurmDuration(v, minutes)
	}
	if !ok {
		return p.errAt(r.at[c], field, fmt.Sprintf("%q is not a time limit", clip(r.val[c])), ErrSyntax)
	}
	if secs > 0 {
		j.TimeLimit = secs
	}
	return nil
}

// count reads a non-negative count column; absent or empty is 0. A node
// range such as "1-2" (a job that may shrink) counts its first number.
func (p *sacctParser) count(r *sacctRow, c sacctCol, field string) (int64, error) {
	v := r.val[c]
	if len(v) == 0 {
		return 0, nil
	}
	if i := bytes.IndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	n, ok := digits(string(v))
	if !ok || n > math.MaxInt32 {
		return 0, p.errAt(r.at[c], field, fmt.Sprintf("%q is not a count", clip(r.val[c])), ErrSyntax)
	}
	return n, nil
}

// tresCounts are the TRES of a job that a Job keeps.
type tresCounts struct{ cpu, node, memMB int64 }

// tres reads a TRES list "billing=36,cpu=36,mem=250G,node=1".
func (p *sacctParser) tres(r *sacctRow, c sacctCol, field string) (tresCounts, error) {
	var t tresCounts
	v := r.val[c]
	at := 0
	for len(v) > 0 {
		item := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			item, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		k, val, ok := bytes.Cut(item, []byte{'='})
		if !ok {
			return t, p.errAt(r.at[c]+at, field, fmt.Sprintf("%q is not NAME=COUNT", clip(item)), ErrSyntax)
		}
		switch string(k) {
		case "cpu", "node":
			n, ok := digits(string(val))
			if !ok || n > math.MaxInt32 {
				return t, p.errAt(r.at[c]+at+len(k)+1, field, fmt.Sprintf("%q is not a count", clip(val)), ErrSyntax)
			}
			if string(k) == "cpu" {
				t.cpu = n
			} else {
				t.node = n
			}
		case "mem":
			mb, ok := memMB(val)
			if !ok {
				return t, p.errAt(r.at[c]+at+len(k)+1, field, fmt.Sprintf("%q is not a memory size", clip(val)), ErrSyntax)
			}
			t.memMB = mb
		}
		at += len(item) + 1
	}
	return t, nil
}

// memField reads ReqMem into MemKB per processor: "4000M" (sacct ≥ 21.08:
// the job's whole request), "4Gn" per node, "2Gc" per CPU (older sacct).
// Without ReqMem, ReqTRES mem (the job's whole request) is used.
func (p *sacctParser) memField(r *sacctRow, j *Job, tresMB int64) error {
	v := r.val[colReqMem]
	per := byte(0)
	if n := len(v); n > 0 && (v[n-1] == 'n' || v[n-1] == 'c') {
		per, v = v[n-1], v[:n-1]
	}
	mb := tresMB
	if len(v) > 0 {
		var ok bool
		if mb, ok = memMB(v); !ok {
			return p.errAt(r.at[colReqMem], "ReqMem", fmt.Sprintf("%q is not a memory size", clip(r.val[colReqMem])), ErrSyntax)
		}
	}
	if mb <= 0 || j.Procs <= 0 {
		return nil
	}
	switch per {
	case 'c':
		j.MemKB = mb * 1024
	case 'n':
		j.MemKB = mb * 1024 * int64(max(j.Nodes, 1)) / int64(j.Procs)
	default:
		j.MemKB = mb * 1024 / int64(j.Procs)
	}
	return nil
}

// memMB reads a size with Slurm's unit suffix (K, M, G, T, P; M when none)
// into megabytes; a fraction ("1.50G") is allowed.
func memMB(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 24 {
		return 0, false
	}
	mult := 1.0
	switch v[len(v)-1] {
	case 'K', 'k':
		mult = 1.0 / 1024
	case 'M', 'm':
	case 'G', 'g':
		mult = 1024
	case 'T', 't':
		mult = 1024 * 1024
	case 'P', 'p':
		mult = 1024 * 1024 * 1024
	default:
		mult = 0
	}
	if mult != 0 {
		v = v[:len(v)-1]
	} else {
		mult = 1
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f < 0 || f*mult > 1<<50 {
		return 0, false
	}
	return int64(f * mult), true
}

func (p *sacctParser) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	if p.strs == nil {
		p.strs = make(map[string]string)
	}
	s := string(b)
	p.strs[s] = s
	return s
}

func (p *sacctParser) finish() *Trace {
	tr := &Trace{Source: p.name, Jobs: p.jobs, Skipped: p.skipped}
	finishAbsolute(tr, p.opt)
	return tr
}

// finishAbsolute turns a trace whose Submit times are Unix seconds into one
// relative to its earliest submit, sorts it, and fills time limits.
func finishAbsolute(tr *Trace, opt Options) {
	if len(tr.Jobs) > 0 {
		first := tr.Jobs[0].Submit
		for _, j := range tr.Jobs {
			first = min(first, j.Submit)
		}
		tr.StartTime = first
		for i := range tr.Jobs {
			tr.Jobs[i].Submit -= first
		}
	}
	sortBySubmit(tr.Jobs)
	opt.Estimate.apply(tr.Jobs)
}

// sortBySubmit puts jobs in submit order, keeping the source's order among
// equal submit times.
func sortBySubmit(jobs []Job) {
	if slices.IsSortedFunc(jobs, cmpSubmit) {
		return
	}
	slices.SortStableFunc(jobs, cmpSubmit)
}

func cmpSubmit(a, b Job) int {
	switch {
	case a.Submit < b.Submit:
		return -1
	case a.Submit > b.Submit:
		return 1
	}
	return 0
}

func firstPositive(vs ...int64) int64 {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

func (p *sacctParser) errAt(i int, field, msg string, class error) error {
	return &ParseError{File: p.name, Line: p.line, Pos: posAt(p.off + i), Field: field, Msg: msg, Err: class}
}

// clip returns b as a string of at most position.Width bytes, for messages.
func clip(b []byte) string { return position.Clip(string(b)) }
