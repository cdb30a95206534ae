package inventory

import (
	"errors"
	"io"
	"slices"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/index"
)

// The streaming reader of Slurm's JSON output (scontrol show node --json,
// sinfo --json) walks the document through a window of the file, a
// top-level member at a time, and reads each node object or sinfo entry as
// a document of its own with the general reader's code (scontrolReader,
// sinfoReader): it holds neither the file nor the parse tree of more than
// one entry. It scans with the package's span scanner rather than
// encoding/json's Decoder because the detector and the limits read the
// text as written (keys with their escapes, nesting, item counts). Like the
// sift node file's streaming reader it only ever accepts: on anything the
// general reader might answer otherwise (invalid JSON, an error Slurm
// reported, an entry the general reader refuses, an escaped or repeated
// top-level key, a key Slurm does not write, nesting near fastjson's depth
// limit, a container over --max-features) it declines, and the general
// reader reads the whole file and decides, with its exact errors and byte
// offsets (FuzzSlurmStreamingReader).

// slurmWindow is the least a window reads at a time (a variable so that
// tests can read through small windows).
var slurmWindow = 256 << 10

// slurmDepth makes the scanner refuse nesting deeper than fastjson's
// limit allows the general reader, counting the levels above a scanned
// value: a container scanned at depth slurmDepth+d sits d deep in the
// document, and the scanner refuses more than maxDepth.
const slurmDepth = maxDepth - (fastjson.MaxDepth - 2)

// jsonWindow is a sliding window over JSON text: values are scanned in it
// as they come, and the bytes before the one being read are dropped.
type jsonWindow struct {
	rd  io.Reader
	buf []byte
	pos int // the next unread byte in buf
	eof bool
	err error // a read error other than the end of the input
}

// more reads on, keeping buf[pos:]; false once the input has ended.
func (w *jsonWindow) more() bool {
	if w.eof {
		return false
	}
	if w.pos > 0 {
		w.buf = w.buf[:copy(w.buf, w.buf[w.pos:])]
		w.pos = 0
	}
	if len(w.buf) == cap(w.buf) {
		w.buf = slices.Grow(w.buf, max(cap(w.buf), slurmWindow))
	}
	n, err := io.ReadFull(w.rd, w.buf[len(w.buf):cap(w.buf)])
	w.buf = w.buf[:len(w.buf)+n]
	if err != nil {
		w.eof = true
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			w.err = err
		}
	}
	return true
}

// next skips white space and returns the next byte, or false at the end.
func (w *jsonWindow) next() (byte, bool) {
	for {
		for w.pos < len(w.buf) && isSpace(w.buf[w.pos]) {
			w.pos++
		}
		if w.pos < len(w.buf) {
			return w.buf[w.pos], true
		}
		if !w.more() {
			return 0, false
		}
	}
}

// punct moves past the byte c if it comes next.
func (w *jsonWindow) punct(c byte) bool {
	if b, ok := w.next(); ok && b == c {
		w.pos++
		return true
	}
	return false
}

// value returns the next JSON value, scanned at depth, and moves past it;
// its text is valid until the window moves on.
func (w *jsonWindow) value(depth int) ([]byte, bool) {
	if _, ok := w.next(); !ok {
		return nil, false
	}
	for {
		sc := scanner{b: w.buf}
		// A value that ends at the end of the window may go on (a number).
		if end, err := sc.value(w.pos, depth); err == nil && (end < len(w.buf) || w.eof) {
			v := w.buf[w.pos:end]
			w.pos = end
			return v, true
		}
		if !w.more() {
			return nil, false
		}
	}
}

// slurmTopKeys are the top-level members of Slurm's JSON output, and
// whether one marks the document as Slurm's for the detector.
var slurmTopKeys = map[string]bool{"meta": true, "last_update": true, "sinfo": true, "nodes": false, "errors": false, "warnings": false}

// streamSlurmFile reads the Slurm JSON file at path with the streaming
// reader; ok is false when it declines or cannot read the file. detect
// declines what Load's detector would not read as Slurm's output.
func streamSlurmFile(path string, detect bool, lim Limits) ([]index.Node, bool) {
	f, _, ok := openRegular(path)
	if !ok {
		return nil, false
	}
	defer f.Close()
	nodes, err := streamSlurmJSON(path, f, detect, lim)
	return nodes, err == nil
}

// streamSlurmJSON reads Slurm's JSON output from rd, or returns errDecline
// (or a read error).
func streamSlurmJSON(name string, rd io.Reader, detect bool, lim Limits) ([]index.Node, error) {
	lim = lim.orDefault()
	w := &jsonWindow{rd: rd}
	s := slurmStream{name: name, lim: lim, detect: detect}
	if !w.punct('{') || w.punct('}') {
		return nil, s.decline(w)
	}
	for {
		key, ok := w.value(slurmDepth + 1)
		if !ok || key[0] != '"' || slices.Contains(key, '\\') {
			return nil, s.decline(w)
		}
		k := string(key[1 : len(key)-1])
		marks, known := slurmTopKeys[k]
		if !known || slices.Contains(s.keys, k) || !w.punct(':') {
			return nil, s.decline(w)
		}
		s.keys = append(s.keys, k)
		s.slurm = s.slurm || marks
		if !s.member(w, k) {
			return nil, s.decline(w)
		}
		if w.punct(',') {
			continue
		}
		if !w.punct('}') {
			return nil, s.decline(w)
		}
		break
	}
	if _, more := w.next(); more || w.err != nil {
		return nil, s.decline(w)
	}
	switch {
	case (s.detect && !s.slurm) || slices.Contains(s.keys, "nodes") == slices.Contains(s.keys, "sinfo"):
		return nil, errDecline
	case slices.Contains(s.keys, "sinfo"):
		return s.sinfo.out, nil
	case s.nodes.out == nil:
		return []index.Node{}, nil // as the general reader's
	}
	return s.nodes.out, nil
}

// slurmStream is the state of one streaming read.
type slurmStream struct {
	name   string
	lim    Limits
	detect bool
	keys   []string // the top-level keys so far
	slurm  bool     // a key so far marks the document as Slurm's
	parser fastjson.Parser
	nodes  scontrolReader
	sinfo  sinfoReader
}

// decline is errDecline, or the read error that ended the input.
func (s *slurmStream) decline(w *jsonWindow) error {
	if w.err != nil {
		return w.err
	}
	return errDecline
}

// member reads the value of top-level member k.
func (s *slurmStream) member(w *jsonWindow, k string) bool {
	if k != "nodes" && k != "sinfo" {
		v, ok := w.value(slurmDepth + 1)
		if !ok || (k == "errors" && v[0] == '[' && !blank(v[1:len(v)-1])) {
			// Slurm reported an error: the general reader says which.
			return false
		}
		return s.withinLimit(v, 2)
	}
	if !w.punct('[') {
		return false
	}
	if w.punct(']') {
		return true
	}
	for i := 0; ; i++ {
		v, ok := w.value(slurmDepth + 2)
		if !ok || !s.withinLimit(v, 1) || !s.entry(k, i, v) {
			return false
		}
		if w.punct(',') {
			continue
		}
		return w.punct(']')
	}
}

// withinLimit reports whether value v, minDepth levels below the top-level
// members, holds no array or object over the --max-features limit, which
// the general reader checks over the whole document unless it is sinfo's.
func (s *slurmStream) withinLimit(v []byte, minDepth int) bool {
	if slices.Contains(s.keys, "sinfo") {
		return true
	}
	k, _ := largestContainer(v, minDepth)
	return k <= s.lim.MaxFeatures
}

// entry reads entry i of the nodes or sinfo array, text v.
func (s *slurmStream) entry(k string, i int, v []byte) bool {
	if k == "nodes" && i == 0 && s.detect && !s.slurm {
		// Detected by the first node's keys, or not at all.
		ms, ok := topMembers(v)
		if !ok || !(hasKey(v, ms, "real_memory") || hasKey(v, ms, "hostname") || hasKey(v, ms, "active_features")) {
			return false
		}
		s.slurm = true
	}
	it, err := s.parser.ParseBytes(v)
	if err != nil {
		return false
	}
	if k == "sinfo" {
		if s.sinfo.pos == nil {
			s.sinfo = sinfoReader{lim: s.lim, pos: map[string]int{}}
		}
		return s.sinfo.add(s.name, i, it) == nil
	}
	if s.nodes.seen == nil {
		s.nodes = scontrolReader{lim: s.lim, out: []index.Node{}, seen: map[string]bool{}}
	}
	return i < s.lim.MaxNodes && s.nodes.add(s.name, i, it) == nil
}
