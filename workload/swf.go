package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// swfFields is how many fields an SWF job line has.
const swfFields = 18

// swfFieldNames names the 18 SWF fields for error messages.
var swfFieldNames = [swfFields]string{
	"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time",
	"requested memory", "status", "user", "group", "executable", "queue",
	"partition", "preceding job", "think time",
}

// Options says what a reader keeps and how it fills what its source lacks.
type Options struct {
	// KeepCancelled keeps cancelled jobs that ran (they have a run time and
	// a processor count, and held those processors while they ran); by
	// default every cancelled job is skipped and counted in
	// Trace.Skipped.Cancelled. A replay of a real site should keep them.
	KeepCancelled bool
	// Estimate fills TimeLimit where the source has none.
	Estimate Estimate
	// Location is the time zone of sacct's dates written without one
	// ("2024-01-31T09:15:00", the zone of the host that ran sacct); nil is
	// UTC.
	Location *time.Location
}

// SWFRecord is the 18 numbers of one SWF job line as written: -1 where the
// log has no value, a fraction rounded to the nearest integer. Index i is
// field i+1 of the format.
type SWFRecord [swfFields]int64

// ScanSWF reads an SWF log as ReadSWF does but keeps no jobs: it calls job
// with every job line, in file order, skipping none, for a caller with its
// own rules (package hpcsim follows a published method's). It returns the
// header as a Trace without Jobs. An error from job stops the scan and is
// returned wrapped with the line.
func ScanSWF(r io.Reader, name string, job func(*SWFRecord) error) (*Trace, error) {
	br, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	p := swfParser{name: name, tr: &Trace{Source: name}, scan: job}
	if err := p.run(br); err != nil {
		return nil, err
	}
	p.tr.Jobs = nil
	return p.tr, nil
}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// ReadSWF reads an SWF log, plain or gzip-compressed (told apart by the
// gzip magic bytes, not by the name), from r. name is used in errors and as
// Trace.Source. Errors are *ParseError, wrapped.
//
// SWF is the Standard Workload Format of the Parallel Workloads Archive
// (Feitelson, Tsafrir, Krakov, "Experience with using the Parallel Workloads
// Archive", JPDC 74(10), 2014; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html):
// header comments "; Key: value" and one job a line of 18 whitespace
// separated numbers, -1 where a value is unknown.
//
// How ReadSWF reads each field into a Job, and the traps of real logs:
//
//   - 1 job number → ID; 2 submit time → Submit (seconds after the header's
//     UnixStartTime, which is Trace.StartTime), kept as recorded: in a
//     cleaned log the first job may come long after 0 (CEA-Curie's first is
//     at 31,656,837 s), so a simulator starts its clock at the first submit.
//   - 3 wait time → Wait: what the recorded machine gave, kept for
//     comparison, never an input to a simulation.
//   - 4 run time → Run. A job without one (-1) is Skipped.Unusable, unless
//     it is cancelled (then Skipped.Cancelled).
//   - 5 allocated processors → AllocProcs; 8 requested processors → Procs,
//     or the allocated count when the request is -1 or 0 (CTC-SP2 records
//     no request at all; CEA-Curie has requests without allocations). A job
//     with neither is Skipped.Unusable.
//   - 9 requested time → TimeLimit (Unknown when -1 or 0). Jobs may have run
//     past it; Run is kept as recorded and the simulator decides.
//   - 10 requested memory per processor (KB) → MemKB.
//   - 11 status: 1 completed, 0 failed, -1 unknown (HPC2N has 878), 5
//     cancelled: Skipped.Cancelled unless Options.KeepCancelled (SDSC-SP2's
//     5,671 lines with run time -1 and 0 processors are cancelled jobs that
//     never started). 2, 3 and 4 are partial records of checkpointed jobs,
//     whose summary line is also in the log: Skipped.Partial.
//   - 12 user and 13 group → User and Group as decimal strings ("" when -1).
//   - 16 partition → Partition: its name from the header's "Partition: N
//     name" table when there is one, else the number.
//   - 6, 7, 14, 15, 17, 18 are checked for syntax and not kept. Field 6 (CPU
//     time) is written with decimals in CTC-SP2, SDSC-SP2 and HPC2N: every
//     field may have a decimal fraction, which is rounded to the nearest
//     integer.
//
// Header values are read as the integer they start with, so "MaxNodes: 338
// (batch partition; 512 total)" (CTC-SP2) is 338; a header value that does
// not start with an integer is ignored, as every other comment is.
// Jobs are returned in submit order (a stable sort when the log is not).
func ReadSWF(r io.Reader, name string, opt Options) (*Trace, error) {
	br, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	p := swfParser{name: name, opt: opt, tr: &Trace{Source: name}}
	if err := p.run(br); err != nil {
		return nil, err
	}
	sortBySubmit(p.tr.Jobs)
	opt.Estimate.apply(p.tr.Jobs)
	return p.tr, nil
}

type swfParser struct {
	name       string
	opt        Options
	tr         *Trace
	scan       func(*SWFRecord) error // ScanSWF's callback, or nil
	partitions map[int64]string
	users      map[int64]string
	off        int // byte offset of the current line
	line       int
}

func (p *swfParser) run(br *bufio.Reader) error {
	return eachLine(br, p.name, &p.line, &p.off, p.parseLine)
}

func (p *swfParser) parseLine(b []byte) error {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return nil
	}
	if b[i] == ';' {
		p.header(b[i+1:])
		return nil
	}
	var f SWFRecord
	n := 0
	for i < len(b) {
		if isSpace(b[i]) {
			i++
			continue
		}
		if n == swfFields {
			return p.errAt(i, "", fmt.Sprintf("more than %d fields", swfFields), ErrSyntax)
		}
		v, next, msg, class := parseNumber(b, i)
		if msg != "" {
			return p.errAt(i, swfFieldNames[n], msg, class)
		}
		f[n] = v
		n++
		i = next
	}
	if n < swfFields {
		return p.errAt(len(bytes.TrimRight(b, " \t\r\n")), "", fmt.Sprintf("%d fields, SWF has %d", n, swfFields), ErrSyntax)
	}
	if p.scan != nil {
		if err := p.scan(&f); err != nil {
			return fmt.Errorf("%s:%d: %w", p.name, p.line, err)
		}
		return nil
	}
	p.job(&f)
	return nil
}

func (p *swfParser) job(f *SWFRecord) {
	status := f[10]
	switch status {
	case 2, 3, 4:
		p.tr.Skipped.Partial++
		return
	case 5:
		if !p.opt.KeepCancelled {
			p.tr.Skipped.Cancelled++
			return
		}
	}
	procs := f[7]
	if procs <= 0 {
		procs = f[4]
	}
	if f[1] < 0 || f[3] < 0 || procs <= 0 || procs > math.MaxInt32 {
		if status == 5 {
			p.tr.Skipped.Cancelled++
		} else {
			p.tr.Skipped.Unusable++
		}
		return
	}
	j := Job{
		ID:         f[0],
		Submit:     f[1],
		Wait:       orUnknown(f[2]),
		Run:        f[3],
		Procs:      int(procs),
		AllocProcs: Unknown,
		TimeLimit:  Unknown,
		MemKB:      Unknown,
		User:       p.idString(f[11]),
		Group:      p.idString(f[12]),
		Partition:  p.partition(f[15]),
	}
	if f[4] > 0 && f[4] <= math.MaxInt32 {
		j.AllocProcs = int(f[4])
	}
	if f[8] > 0 {
		j.TimeLimit = f[8]
	}
	if f[9] > 0 {
		j.MemKB = f[9]
	}
	switch status {
	case 1:
		j.Status = StatusCompleted
	case 0:
		j.Status = StatusFailed
	case 5:
		j.Status = StatusCancelled
	}
	p.tr.Jobs = append(p.tr.Jobs, j)
}

// header reads the "Key: value" comments ReadSWF uses; every other comment
// is ignored.
func (p *swfParser) header(b []byte) {
	key, val, ok := bytes.Cut(b, []byte{':'})
	if !ok {
		return
	}
	key = bytes.TrimSpace(key)
	val = bytes.TrimSpace(val)
	switch string(key) {
	case "MaxNodes":
		if v, ok := leadingInt(val); ok && v <= math.MaxInt32 {
			p.tr.Machine.MaxNodes = int(v)
		}
	case "MaxProcs":
		if v, ok := leadingInt(val); ok && v <= math.MaxInt32 {
			p.tr.Machine.MaxProcs = int(v)
		}
	case "UnixStartTime":
		if v, ok := leadingInt(val); ok {
			p.tr.StartTime = v
		}
	case "MaxRecords":
		// A capacity hint only, bounded so a header cannot make the reader
		// allocate much before it has read a job.
		if v, ok := leadingInt(val); ok && p.tr.Jobs == nil {
			p.tr.Jobs = make([]Job, 0, min(v, 1<<16))
		}
	case "Partition":
		num, name := splitNumber(val)
		if num < 0 || len(name) == 0 {
			return
		}
		if p.partitions == nil {
			p.partitions = make(map[int64]string)
		}
		p.partitions[num] = string(name)
	}
}

// idString returns an anonymised SWF id as a string, one string per id.
func (p *swfParser) idString(id int64) string {
	if id < 0 {
		return ""
	}
	if s, ok := p.users[id]; ok {
		return s
	}
	if p.users == nil {
		p.users = make(map[int64]string)
	}
	s := strconv.FormatInt(id, 10)
	p.users[id] = s
	return s
}

func (p *swfParser) partition(n int64) string {
	if n < 0 {
		return ""
	}
	if s, ok := p.partitions[n]; ok {
		return s
	}
	return p.idString(n)
}

func (p *swfParser) errAt(i int, field, msg string, class error) error {
	return &ParseError{File: p.name, Line: p.line, Pos: posAt(p.off + i), Field: field, Msg: msg, Err: class}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// parseNumber reads -?digits(.digits)? at b[i:], ending at a space or the
// end, rounding a fraction to the nearest integer. It returns the value,
// the index after it, and a message and class when the bytes are not one.
func parseNumber(b []byte, i int) (int64, int, string, error) {
	start := i
	neg := false
	if b[i] == '-' {
		neg = true
		i++
	}
	var v int64
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if v > (math.MaxInt64-9)/10 {
			return 0, i, "number too large", ErrRange
		}
		v = v*10 + int64(b[i]-'0')
		digits++
		i++
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i < len(b) && b[i] >= '5' && b[i] <= '9' {
			v++
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			digits++
			i++
		}
	}
	if digits == 0 || (i < len(b) && !isSpace(b[i])) {
		end := i
		for end < len(b) && !isSpace(b[end]) {
			end++
		}
		return 0, i, fmt.Sprintf("%q is not a number", b[start:end]), ErrSyntax
	}
	if neg {
		v = -v
	}
	return v, i, "", nil
}

// leadingInt returns the integer b starts with.
func leadingInt(b []byte) (int64, bool) {
	n, rest := splitNumber(b)
	return n, n >= 0 && len(rest) < len(b)
}

// splitNumber returns the non-negative integer b starts with (-1 when none)
// and the trimmed rest.
func splitNumber(b []byte) (int64, []byte) {
	var v int64
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if v > (math.MaxInt64-9)/10 {
			return -1, b
		}
		v = v*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 {
		return -1, b
	}
	return v, bytes.TrimSpace(b[i:])
}

func orUnknown(v int64) int64 {
	if v < 0 {
		return Unknown
	}
	return v
}
