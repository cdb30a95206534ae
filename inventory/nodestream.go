package inventory

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"math"
	"slices"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/index"
)

// The streaming reader is the fast path of a sift node file: it reads the
// file in blocks, a node a line, without holding the file, and makes each
// node in one pass over its text. It takes only the common form: every
// node object on a line of its own (JSON Lines, or the document
// {"nodes":[ ... ]} as sift inventory convert writes it), ASCII text,
// strings without escapes, extra data nested at most streamMaxDepth deep,
// and no duplicate name, field or rank. On anything else, including every
// error and every warning the general reader would give, it declines, and
// the caller reads the whole file with the general reader, which then
// decides. A node it accepts is the node the general reader makes
// (TestStreamingReaderAgreesWithTheGeneralOne).

// errDecline is the streaming reader declining a file.
var errDecline = errors.New("inventory: not in the streaming reader's form")

// streamBlock is how much of the file the streaming reader reads at a time.
const streamBlock = 1 << 20

// sampleNodes is how many nodes the streaming reader reads before it
// reserves room for the rest from their size.
const sampleNodes = 1024

// streamMaxDepth is the deepest nesting of arrays and objects in extra data
// the streaming reader takes: json-c's limit is further (extra.MaxDepth),
// so such extra data is always usable and never warned about.
const streamMaxDepth = 16

// streamReader holds the state of one streaming read.
type streamReader struct {
	rd        io.Reader
	size      int64  // the file's size, or 0
	pos       int64  // bytes of the file returned as lines so far
	buf       []byte // buf[lo:hi] is read and not yet parsed
	lo        int
	hi        int
	eof       bool
	lim       Limits
	nodes     []index.Node
	lists     map[string][]string
	gresLists map[string][]index.Gres
	// names holds the names of the nodes since the last flushNames, which
	// then share one string; nameEnd is where each ends in it.
	names   []byte
	nameEnd []int
	// slab is where node extra texts are copied, a block at a time, so
	// that a million nodes make a few hundred allocations, not a million.
	slab   []byte
	ranked bool
	parser fastjson.Parser
}

// streamNodeFile reads a sift node file of about size bytes from rd, or
// returns errDecline (or a read error).
func streamNodeFile(rd io.Reader, size int64, lim Limits) ([]index.Node, error) {
	r := &streamReader{rd: rd, size: size, buf: make([]byte, streamBlock), lim: lim.orDefault()}
	line, ok, err := r.line()
	for ok && blank(line) {
		line, ok, err = r.line()
	}
	if err != nil || !ok {
		return nil, errOrDecline(err)
	}
	if isDocumentStart(line) {
		err = r.document()
	} else {
		err = r.jsonLines(line)
	}
	if err != nil {
		return nil, err
	}
	r.flushNames()
	if !uniqueNames(r.nodes) || (r.ranked && !uniqueRanks(r.nodes)) {
		return nil, errDecline
	}
	return r.nodes, nil
}

func errOrDecline(err error) error {
	if err != nil {
		return err
	}
	return errDecline
}

// isDocumentStart reports whether line opens the document form and nothing
// else: {"nodes":[ with optional spaces.
func isDocumentStart(line []byte) bool {
	for _, want := range [...]string{"{", `"nodes"`, ":", "["} {
		line = trimSpace(line)
		if !bytes.HasPrefix(line, []byte(want)) {
			return false
		}
		line = line[len(want):]
	}
	return blank(line)
}

// line returns the next line without its '\n'; ok is false at the end of
// the file. The line is valid until the next call.
func (r *streamReader) line() (line []byte, ok bool, err error) {
	for {
		if k := bytes.IndexByte(r.buf[r.lo:r.hi], '\n'); k >= 0 {
			line = r.buf[r.lo : r.lo+k]
			r.lo += k + 1
			r.pos += int64(k + 1)
			return line, true, nil
		}
		if r.eof {
			if r.lo < r.hi {
				line = r.buf[r.lo:r.hi]
				r.lo = r.hi
				return line, true, nil
			}
			return nil, false, nil
		}
		// Keep the partial line, make room, read on.
		n := copy(r.buf, r.buf[r.lo:r.hi])
		r.lo, r.hi = 0, n
		if r.hi == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := io.ReadFull(r.rd, r.buf[r.hi:])
		r.hi += m
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			r.eof = true
		case err != nil:
			return nil, false, err
		}
	}
}

// document reads the nodes of {"nodes":[ ... ]}, one a line, each but the
// last followed by a comma, then ] and } alone.
func (r *streamReader) document() error {
	more := true
	for {
		line, ok, err := r.line()
		if err != nil || !ok {
			return errOrDecline(err)
		}
		if blank(line) {
			continue
		}
		if !more {
			return r.documentEnd(line)
		}
		end, err := r.node(line)
		if err != nil {
			return err
		}
		rest := trimSpace(line[end:])
		switch {
		case len(rest) == 0:
			more = false
		case len(rest) == 1 && rest[0] == ',':
		default:
			return errDecline
		}
	}
}

// documentEnd checks that line and the rest of the file close the
// document: ] and } and nothing else.
func (r *streamReader) documentEnd(line []byte) error {
	var tail []byte
	for {
		for _, c := range line {
			if !isSpace(c) {
				tail = append(tail, c)
			}
		}
		if len(tail) > 2 {
			return errDecline
		}
		var ok bool
		var err error
		if line, ok, err = r.line(); err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	if string(tail) != "]}" {
		return errDecline
	}
	return nil
}

// jsonLines reads one node a line, first being the first non-blank line.
func (r *streamReader) jsonLines(first []byte) error {
	line := first
	for {
		if !blank(line) {
			end, err := r.node(line)
			if err != nil {
				return err
			}
			if !blank(line[end:]) {
				return errDecline
			}
		}
		var ok bool
		var err error
		if line, ok, err = r.line(); err != nil || !ok {
			return err
		}
	}
}

// ws skips JSON white space (no newline: a node is on one line).
func ws(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// plainString returns the end (past the closing quote) of the string at
// b[i], which must be printable ASCII without escapes.
func plainString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return i, false
		}
	}
	return i, false
}

// node reads the node object starting at line's first non-blank byte and
// returns where it ends.
func (r *streamReader) node(line []byte) (int, error) {
	i := ws(line, 0)
	if i >= len(line) || line[i] != '{' {
		return 0, errDecline
	}
	if len(r.nodes) >= r.lim.MaxNodes {
		return 0, errDecline
	}
	n := index.Node{Rank: uint32(len(r.nodes))}
	var seen [numFields]bool
	for i = ws(line, i+1); ; {
		kEnd, ok := plainString(line, i)
		if !ok {
			return 0, errDecline
		}
		f, ok := fieldByName(line[i+1 : kEnd-1])
		if !ok || seen[f] {
			return 0, errDecline
		}
		seen[f] = true
		i = ws(line, kEnd)
		if i >= len(line) || line[i] != ':' {
			return 0, errDecline
		}
		end, err := r.field(&n, f, line, ws(line, i+1))
		if err != nil {
			return 0, err
		}
		i = ws(line, end)
		if i < len(line) && line[i] == ',' {
			i = ws(line, i+1)
			continue
		}
		if i < len(line) && line[i] == '}' {
			i++
			break
		}
		return 0, errDecline
	}
	if !seen[fName] {
		return 0, errDecline
	}
	if len(r.nodes) == sampleNodes && r.size > 0 {
		// Room for the nodes of the whole file if they are like the first
		// ones, so that the node slice is allocated once more, not doubled
		// a dozen times.
		est := r.size / max(1, r.pos/sampleNodes)
		r.nodes = slices.Grow(r.nodes, int(min(est+est/64, int64(r.lim.MaxNodes)))-len(r.nodes))
	}
	r.nodes = append(r.nodes, n)
	if len(r.nameEnd) == nameBatch {
		r.flushNames()
	}
	return i, nil
}

// field reads field f's value at line[i] into n and returns where it ends.
func (r *streamReader) field(n *index.Node, f field, line []byte, i int) (int, error) {
	switch f {
	case fName:
		end, ok := plainString(line, i)
		if !ok || end-i == 2 || bytes.ContainsAny(line[i+1:end-1], " \t\r\n,[]") {
			return 0, errDecline
		}
		r.names = append(r.names, line[i+1:end-1]...)
		r.nameEnd = append(r.nameEnd, len(r.names))
		return end, nil
	case fExtra:
		return r.extra(n, line, i)
	case fFeatures, fPartitions:
		end, list, ok := r.list(line, i)
		if !ok {
			return 0, errDecline
		}
		if f == fFeatures {
			n.Features = list
		} else {
			n.Partitions = list
		}
		return end, nil
	case fState:
		end, ok := plainString(line, i)
		if !ok {
			return 0, errDecline
		}
		for _, st := range states {
			if bytes.EqualFold(line[i+1:end-1], []byte(st)) {
				n.State = st
				return end, nil
			}
		}
		return 0, errDecline
	case fGres:
		return r.gres(n, line, i)
	}
	if i >= len(line) || line[i] == '-' {
		return 0, errDecline
	}
	sc := scanner{b: line}
	end, err := sc.number(i)
	if err != nil {
		return 0, errDecline
	}
	u, ok := shortUint(line[i:end])
	if !ok || u > uintLimit(f) {
		return 0, errDecline
	}
	r.ranked = setUint(n, f, u) || r.ranked
	return end, nil
}

// extra keeps an extra object's exact text, or a null.
func (r *streamReader) extra(n *index.Node, line []byte, i int) (int, error) {
	if bytes.HasPrefix(line[i:], []byte("null")) {
		return i + len("null"), nil
	}
	if i >= len(line) || line[i] != '{' {
		return 0, errDecline
	}
	sc := scanner{b: line}
	end, err := sc.value(i, 1)
	if err != nil {
		return 0, errDecline
	}
	raw := line[i:end]
	if depth, items := shape(raw); depth > streamMaxDepth || items > r.lim.MaxFeatures {
		return 0, errDecline
	}
	if len(r.slab) < len(raw) {
		r.slab = make([]byte, max(64<<10, len(raw)))
	}
	n.Extra = r.slab[:len(raw):len(raw)]
	copy(n.Extra, raw)
	r.slab = r.slab[len(raw):]
	return end, nil
}

// shape returns how deep arrays and objects nest in raw (scanned, valid
// JSON) and the most items any of them holds, counted as largestContainer
// counts. A byte outside ASCII or an escape makes the depth too deep, so
// that the caller declines.
func shape(raw []byte) (depth, items int) {
	var commas [streamMaxDepth + 1]int
	var nonEmpty [streamMaxDepth + 1]bool
	d := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case isSpace(c):
			continue
		case c >= 0x80:
			return math.MaxInt, 0
		case c == '"':
			for i++; raw[i] != '"'; i++ {
				if raw[i] == '\\' || raw[i] >= 0x80 {
					return math.MaxInt, 0
				}
			}
		case c == '{' || c == '[':
			nonEmpty[d] = true
			if d++; d > streamMaxDepth {
				return d, 0
			}
			depth = max(depth, d)
			commas[d], nonEmpty[d] = 0, false
			continue
		case c == '}' || c == ']':
			if nonEmpty[d] {
				items = max(items, commas[d]+1)
			}
			d--
			continue
		case c == ',':
			commas[d]++
			continue
		}
		nonEmpty[d] = true
	}
	return depth, items
}

// isSpace reports JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// blank reports whether b is JSON white space only.
func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// trimSpace cuts JSON white space from both ends of b.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// list reads an array of non-empty plain strings; lists with the same text
// share one slice, as the general reader's do.
func (r *streamReader) list(line []byte, i int) (int, []string, bool) {
	if i >= len(line) || line[i] != '[' {
		return 0, nil, false
	}
	start := i
	var spans [][2]int
	if i = ws(line, i+1); i < len(line) && line[i] != ']' {
		for {
			end, ok := plainString(line, i)
			if !ok || end-i == 2 {
				return 0, nil, false
			}
			spans = append(spans, [2]int{i + 1, end - 1})
			if i = ws(line, end); i >= len(line) || line[i] != ',' {
				break
			}
			i = ws(line, i+1)
		}
	}
	if i >= len(line) || line[i] != ']' || len(spans) > r.lim.MaxFeatures {
		return 0, nil, false
	}
	end := i + 1
	raw := line[start:end]
	if list, ok := r.lists[string(raw)]; ok {
		return end, list, true
	}
	list := make([]string, len(spans))
	for k, s := range spans {
		list[k] = string(line[s[0]:s[1]])
	}
	if len(r.lists) < maxSharedLists {
		if r.lists == nil {
			r.lists = map[string][]string{}
		}
		r.lists[string(raw)] = list
	}
	return end, list, true
}

// gres reads a gres array with the general reader's code.
func (r *streamReader) gres(n *index.Node, line []byte, i int) (int, error) {
	if i >= len(line) || line[i] != '[' {
		return 0, errDecline
	}
	sc := scanner{b: line}
	end, err := sc.value(i, 1)
	if err != nil {
		return 0, errDecline
	}
	if k, _ := largestContainer(line[i:end], 1); k > r.lim.MaxFeatures || bytes.IndexByte(line[i:end], '\\') >= 0 {
		return 0, errDecline
	}
	// Like feature lists, the nodes with the same gres text share a slice.
	if g, ok := r.gresLists[string(line[i:end])]; ok {
		n.Gres = g
		return end, nil
	}
	v, perr := r.parser.ParseBytes(line[i:end])
	if perr != nil {
		return 0, errDecline
	}
	gr := nodeReader{data: line}
	if gr.gres(n, v, member{valStart: i, valEnd: end}) != nil {
		return 0, errDecline
	}
	if len(r.gresLists) < maxSharedLists {
		if r.gresLists == nil {
			r.gresLists = map[string][]index.Gres{}
		}
		r.gresLists[string(line[i:end])] = n.Gres
	}
	return end, nil
}

// nameBatch is how many node names share a string.
const nameBatch = 4096

// flushNames gives the nodes read since the last flush their names, as
// parts of one string: a name costs its bytes, not a 16-byte allocation.
func (r *streamReader) flushNames() {
	all := string(r.names)
	nodes := r.nodes[len(r.nodes)-len(r.nameEnd):]
	start := 0
	for k, end := range r.nameEnd {
		nodes[k].Name = all[start:end]
		start = end
	}
	r.names, r.nameEnd = r.names[:0], r.nameEnd[:0]
}

// uniqueNames reports whether no two nodes share a name, with a table of
// node indexes by name hash: 4 bytes a slot, where a map of names would
// cost tens of bytes a node.
func uniqueNames(nodes []index.Node) bool {
	size := 1
	for size < 2*len(nodes) {
		size <<= 1
	}
	table := make([]int32, size)
	seed := maphash.MakeSeed()
	for i := range nodes {
		h := maphash.String(seed, nodes[i].Name)
		for s := h & uint64(size-1); ; s = (s + 1) & uint64(size-1) {
			if table[s] == 0 {
				table[s] = int32(i + 1)
				break
			}
			if nodes[table[s]-1].Name == nodes[i].Name {
				return false
			}
		}
	}
	return true
}

// uniqueRanks reports whether no two nodes share a rank.
func uniqueRanks(nodes []index.Node) bool {
	seen := make(map[uint32]struct{}, len(nodes))
	for i := range nodes {
		if _, dup := seen[nodes[i].Rank]; dup {
			return false
		}
		seen[nodes[i].Rank] = struct{}{}
	}
	return true
}
