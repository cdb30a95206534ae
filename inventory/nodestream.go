package inventory

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"slices"
	"sync"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/index"
)

// The streaming reader is the fast path of a sift node file: it reads the
// file in blocks of whole lines, without holding the file, parses the
// blocks on two goroutines, a node a line in one pass over its text,
// straight into the file's node slice (sized from the first block and the
// file's size), and joins them in file order. It takes only the common form: every
// node object on a line of its own (JSON Lines, or the document
// {"nodes":[ ... ]} as sift inventory convert writes it), ASCII text,
// strings without escapes, extra data nested at most streamMaxDepth deep,
// and no duplicate name, field or rank. On anything else, including every
// error and every warning the general reader would give, it declines, and
// the caller reads the whole file with the general reader, which then
// decides. A node it accepts is the node the general reader makes
// (TestStreamingReaderAgreesWithTheGeneralOne, FuzzStreamingReader).

// errDecline is the streaming reader declining a file.
var errDecline = errors.New("inventory: not in the streaming reader's form")

// streamBlock is about how much of the file one block holds (a variable so
// that tests can cut small files into many blocks).
var streamBlock = 1 << 20

// streamWorkers is how many goroutines parse blocks.
const streamWorkers = 2

// streamMaxDepth is the deepest nesting of arrays and objects in extra data
// the streaming reader takes: json-c's limit is further (extra.MaxDepth),
// so such extra data is always usable and never warned about.
const streamMaxDepth = 16

// block is a run of whole lines of the file and, once parsed, what they
// held.
type block struct {
	seq  int
	buf  []byte // storage of text, kept for the next block
	text []byte
	size int // len(text), kept after text is dropped
	// first is the index of the block's first line among the file's node
	// lines, lines how many it has (a node a line at most).
	first, lines int
	// dst, when not nil, is the room for the block's nodes in the file's
	// node slice (lines of it from first): the block's nodes are parsed
	// straight into place. Otherwise they go to own, kept for the next
	// block, and the joiner appends them.
	dst, own []index.Node
	// nodes are the block's nodes; explicit lists the ones that gave
	// their rank (the others get their line's position in the file, which
	// the joiner corrects if lines before them held no node).
	nodes    []index.Node
	explicit []int
	// The document form's punctuation: whether the last node had a comma
	// after it, and the non-space bytes after the block's last node.
	lastComma bool
	tail      []byte
	err       error
}

// streamPool is how many blocks pass through the reader, the workers and
// the joiner: the whole file goes through these few buffers, so reading it
// makes no garbage (garbage the collector has not yet returned is peak
// memory).
const streamPool = 2*streamWorkers + 2

// streamNodeFile reads a sift node file of about size bytes from rd, or
// returns errDecline (or a read error).
func streamNodeFile(rd io.Reader, size int64, lim Limits) ([]index.Node, error) {
	lim = lim.orDefault()
	br := &blockReader{rd: rd, size: size}
	first, err := br.next(nil)
	if len(first) == 0 {
		return nil, errOrDecline(err)
	}
	line, end := firstLine(first)
	doc := isDocumentStart(line)
	if doc {
		first = first[min(end+1, len(first)):]
	}
	all := nodeRoom(first, size, err != nil, lim)

	todo := make(chan *block, streamPool)
	done := make(chan *block, streamPool)
	free := make(chan *block, streamPool)
	for range streamPool - 1 {
		free <- &block{}
	}
	stop := make(chan struct{})
	var readErr error
	go func(err error) {
		// The reader hands out blocks until the file, or the joiner, ends.
		defer close(todo)
		b := &block{buf: first, text: first}
		line := 0
		for seq := 0; ; {
			if len(b.text) > 0 {
				b.seq, b.size = seq, len(b.text)
				b.first, b.lines = line, lineCount(b.text)
				line += b.lines
				b.dst = nil
				if b.first+b.lines <= len(all) {
					b.dst = all[b.first : b.first : b.first+b.lines]
				}
				select {
				case todo <- b:
				case <-stop:
					return
				}
				seq++
				if err != nil {
					break
				}
				select {
				case b = <-free:
				case <-stop:
					return
				}
			}
			if err != nil {
				break
			}
			b.buf, err = br.next(b.buf[:0])
			b.text = b.buf
		}
		if !errors.Is(err, io.EOF) {
			readErr = err
		}
	}(err)
	var wg sync.WaitGroup
	for range streamWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &lineParser{lim: lim, doc: doc}
			for b := range todo {
				p.parse(b)
				done <- b
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	nodes, ranked, err := joinBlocks(done, free, all, lim, doc)
	if err != nil {
		close(stop)
		for range done {
		}
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	if !uniqueNames(nodes) || (ranked && !uniqueRanks(nodes)) {
		return nil, errDecline
	}
	return nodes, nil
}

// firstLine returns the first line of text that is not blank, without
// its newline, and where it ends.
func firstLine(text []byte) ([]byte, int) {
	i := ws(text, 0)
	for i < len(text) && text[i] == '\n' {
		i = ws(text, i+1)
	}
	end := len(text)
	if k := bytes.IndexByte(text[i:], '\n'); k >= 0 {
		end = i + k
	}
	return text[i:end], end
}

// OpensAsNodeLines reports whether the file at path opens as a sift node
// file in its common form, which LoadCluster reads with the streaming
// reader, making next to no garbage: its first line is {"nodes":[ or a node
// object. Only the first line is read; the reader may still decline the
// file further on.
func OpensAsNodeLines(path string) bool {
	f, _, ok := openRegular(path)
	if !ok {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	line, _ := firstLine(buf[:n])
	return isDocumentStart(line) || bytes.HasPrefix(line, []byte(`{"name":`))
}

// nodeRoom allocates the file's node slice from its first block (its node
// lines, after the document's opening line), for the blocks to be parsed
// straight into: as many nodes as the block's lines if the block is the
// whole file, else room for a file of size bytes of lines like the
// block's, and a little more. A file whose lines grow shorter outruns it;
// its later blocks are then appended instead. It is nil when the size is
// not known.
func nodeRoom(first []byte, size int64, whole bool, lim Limits) []index.Node {
	lines := lineCount(first)
	if size <= 0 || lines == 0 {
		return nil
	}
	est := lines
	if !whole {
		est = int(min(size*int64(lines)/int64(len(first)), int64(lim.MaxNodes)))
		est += est/64 + 16
	}
	return make([]index.Node, min(est, lim.MaxNodes))
}

// lineCount is the number of lines of text, the last one with or without
// its newline.
func lineCount(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// joinBlocks takes the parsed blocks in file order into one slice (all,
// where the blocks that were parsed in place are) and checks the
// document's punctuation across them; ranked reports explicit ranks.
func joinBlocks(done <-chan *block, free chan<- *block, all []index.Node, lim Limits, doc bool) (nodes []index.Node, ranked bool, err error) {
	pending := map[int]*block{}
	next := 0
	var tail []byte
	lastComma := true
	nodes = all[:0]
	for b := range done {
		pending[b.seq] = b
		for pending[next] != nil {
			b := pending[next]
			delete(pending, next)
			next++
			if b.err != nil {
				return nil, false, b.err
			}
			if len(b.nodes) > 0 {
				if (doc && !lastComma) || len(tail) > 0 || len(nodes)+len(b.nodes) > lim.MaxNodes {
					return nil, false, errDecline
				}
				lastComma = b.lastComma
				base := len(nodes)
				if b.dst != nil {
					// In place, but lines before it that held no node
					// leave a gap to close.
					nodes = nodes[:base+len(b.nodes)]
					if base != b.first {
						copy(nodes[base:], b.nodes)
					}
				} else {
					nodes = append(nodes, b.nodes...)
					b.own = b.nodes[:0]
				}
				if base != b.first {
					added := nodes[base:]
					k := 0
					for j := range added {
						if k < len(b.explicit) && b.explicit[k] == j {
							k++
							continue
						}
						added[j].Rank = uint32(base + j)
					}
				}
				ranked = ranked || len(b.explicit) > 0
			}
			if tail = append(tail, b.tail...); len(tail) > 2 {
				return nil, false, errDecline
			}
			b.nodes, b.dst, b.explicit, b.tail = nil, nil, b.explicit[:0], b.tail[:0]
			free <- b
		}
	}
	if len(nodes) == 0 || (doc && (lastComma || string(tail) != "]}")) {
		return nil, false, errDecline
	}
	return nodes, ranked, nil
}

// blockReader cuts a file into blocks of whole lines.
type blockReader struct {
	rd    io.Reader
	size  int64  // the file's size if known (0 if not): a small file gets a small buffer
	carry []byte // the partial line after the last block
}

// next returns the next block, about streamBlock bytes of whole lines (the
// file's last one may lack its newline), and io.EOF with the last block.
func (r *blockReader) next(buf []byte) ([]byte, error) {
	want := streamBlock
	if r.size > 0 && r.size < int64(want) {
		want = int(r.size) + 1 // the +1 meets the end of the file without another read
	}
	if want = max(want, 2*len(r.carry)); cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = append(buf[:0], r.carry...)
	for {
		n, err := io.ReadFull(r.rd, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			r.carry = nil
			return buf, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if k := bytes.LastIndexByte(buf, '\n'); k >= 0 {
			r.carry = append(r.carry[:0], buf[k+1:]...)
			return buf[:k+1], nil
		}
		// One line longer than the block: read on.
		buf = slices.Grow(buf, len(buf))
	}
}

func errOrDecline(err error) error {
	if err != nil && !errors.Is(err, io.EOF) {
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

// lineParser parses blocks into nodes; each goroutine has its own.
type lineParser struct {
	lim       Limits
	doc       bool
	lists     map[string][]string
	gresLists map[string][]index.Gres
	// slab is where node extra texts are copied, a block at a time, so
	// that a million nodes make a few hundred allocations, not a million.
	slab   []byte
	parser fastjson.Parser
	// recent are the last feature and partition lists; spans is reused
	// by list.
	recent [2]recentList
	spans  [][2]int
	// names holds the names of the block's nodes, which then share one
	// string; nameEnd is where each ends in it.
	names   []byte
	nameEnd []int
	b       *block // the block being parsed
}

// parse reads b's lines into b.
func (p *lineParser) parse(b *block) {
	p.b = b
	b.lastComma, b.err = true, nil
	if b.nodes = b.dst; b.nodes == nil {
		b.nodes = slices.Grow(b.own[:0], b.lines)
	}
	text := b.text
	for len(text) > 0 {
		line := text
		if k := bytes.IndexByte(text, '\n'); k >= 0 {
			line, text = text[:k], text[k+1:]
		} else {
			text = nil
		}
		if b.err = p.line(line); b.err != nil {
			break
		}
	}
	if b.err == nil {
		p.flushNames()
	}
	p.names, p.nameEnd = p.names[:0], p.nameEnd[:0]
	b.text = nil
}

// line reads one line: blank, a node (with a comma after it in the
// document form), or part of the document's closing ]}.
func (p *lineParser) line(line []byte) error {
	i := ws(line, 0)
	switch {
	case i == len(line):
		return nil
	case line[i] != '{':
		if !p.doc {
			return errDecline
		}
		for _, c := range line[i:] {
			if !isSpace(c) {
				p.b.tail = append(p.b.tail, c)
			}
		}
		if len(p.b.tail) > 2 {
			return errDecline
		}
		return nil
	case len(p.b.tail) > 0 || !p.b.lastComma && p.doc:
		return errDecline
	}
	end, err := p.node(line[i:])
	if err != nil {
		return err
	}
	rest := line[i+end:]
	j := ws(rest, 0)
	p.b.lastComma = false
	if p.doc && j < len(rest) && rest[j] == ',' {
		p.b.lastComma = true
		j = ws(rest, j+1)
	}
	if j < len(rest) {
		return errDecline
	}
	return nil
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
func (r *lineParser) node(line []byte) (int, error) {
	i := ws(line, 0)
	if i >= len(line) || line[i] != '{' {
		return 0, errDecline
	}
	if len(r.b.nodes) >= r.lim.MaxNodes {
		return 0, errDecline
	}
	var n index.Node
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
	if seen[fRank] {
		r.b.explicit = append(r.b.explicit, len(r.b.nodes))
	} else {
		n.Rank = uint32(r.b.first + len(r.b.nodes))
	}
	r.b.nodes = append(r.b.nodes, n)
	return i, nil
}

// field reads field f's value at line[i] into n and returns where it ends.
func (r *lineParser) field(n *index.Node, f field, line []byte, i int) (int, error) {
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
		k := 0
		if f == fPartitions {
			k = 1
		}
		end, list, ok := r.list(&r.recent[k], line, i)
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
	setUint(n, f, u)
	return end, nil
}

// extra keeps an extra object's exact text, or a null.
func (r *lineParser) extra(n *index.Node, line []byte, i int) (int, error) {
	if bytes.HasPrefix(line[i:], []byte("null")) {
		return i + len("null"), nil
	}
	if i >= len(line) || line[i] != '{' {
		return 0, errDecline
	}
	end, ok := plainValue(line, i, 1, r.lim.MaxFeatures)
	if !ok {
		return 0, errDecline
	}
	raw := line[i:end]
	if len(r.slab) < len(raw) {
		r.slab = make([]byte, max(64<<10, len(raw)))
	}
	n.Extra = r.slab[:len(raw):len(raw)]
	copy(n.Extra, raw)
	r.slab = r.slab[len(raw):]
	return end, nil
}

// plainValue returns the end of the JSON value at b[i], a container
// nested inside depth-1 others, checking it as the streaming reader takes
// extra data: valid JSON whose strings are plainString's, whose arrays and
// objects nest at most streamMaxDepth deep and hold at most maxItems items
// each. One pass validates and measures: the general reader's scanner, a
// depth count and an item count were three.
func plainValue(b []byte, i, depth, maxItems int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return plainString(b, i)
	case c == '{' || c == '[':
		if depth > streamMaxDepth {
			return i, false
		}
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		if i = ws(b, i+1); i < len(b) && b[i] == closing {
			return i + 1, true
		}
		for items := 1; items <= maxItems; items++ {
			if c == '{' {
				end, ok := plainString(b, i)
				if !ok {
					return i, false
				}
				if i = ws(b, end); i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = ws(b, i+1)
			}
			end, ok := plainValue(b, i, depth+1, maxItems)
			if !ok {
				return i, false
			}
			switch i = ws(b, end); {
			case i < len(b) && b[i] == ',':
				i = ws(b, i+1)
			case i < len(b) && b[i] == closing:
				return i + 1, true
			default:
				return i, false
			}
		}
		return i, false
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	}
	sc := scanner{b: b}
	end, err := sc.number(i)
	return end, err == nil
}

// literalEnd returns the end of word at b[i].
func literalEnd(b []byte, i int, word string) (int, bool) {
	if !bytes.HasPrefix(b[i:], []byte(word)) {
		return i, false
	}
	return i + len(word), true
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

// recentList is the last list a field held: most nodes repeat the list of
// the node before, which is then found without hashing the text.
type recentList struct {
	raw  []byte
	list []string
}

// list reads an array of non-empty plain strings; lists with the same text
// share one slice, as the general reader's do. recent is the field's last
// list.
func (r *lineParser) list(recent *recentList, line []byte, i int) (int, []string, bool) {
	if i >= len(line) || line[i] != '[' {
		return 0, nil, false
	}
	if n := len(recent.raw); recent.list != nil && len(line)-i >= n && bytes.Equal(line[i:i+n], recent.raw) {
		return i + n, recent.list, true
	}
	start := i
	spans := r.spans[:0]
	defer func() { r.spans = spans[:0] }()
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
	list, ok := r.lists[string(raw)]
	if !ok {
		list = make([]string, len(spans))
		for k, s := range spans {
			list[k] = string(line[s[0]:s[1]])
		}
		if len(r.lists) >= maxSharedLists {
			return end, list, true
		}
		if r.lists == nil {
			r.lists = map[string][]string{}
		}
		r.lists[string(raw)] = list
	}
	recent.raw, recent.list = append(recent.raw[:0], raw...), list
	return end, list, true
}

// gres reads a gres array with the general reader's code.
func (r *lineParser) gres(n *index.Node, line []byte, i int) (int, error) {
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

// flushNames gives the block's nodes their names, as parts of one string:
// a name costs its bytes, not a 16-byte allocation.
func (r *lineParser) flushNames() {
	all := string(r.names)
	nodes := r.b.nodes[len(r.b.nodes)-len(r.nameEnd):]
	start := 0
	for k, end := range r.nameEnd {
		nodes[k].Name = all[start:end]
		start = end
	}
	r.names, r.nameEnd = r.names[:0], r.nameEnd[:0]
}

// uniqueNames reports whether no two nodes share a name. Names that ascend
// (ascendingNames), as a cluster's usually do, are unique at a glance;
// others are checked with a table of node indexes by name hash: 4 bytes a
// slot, where a map of names would cost tens of bytes a node, but a cache
// miss or two a node.
func uniqueNames(nodes []index.Node) bool {
	if ascendingNames(nodes) {
		return true
	}
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

// ascendingNames reports whether every node's name sorts after the one
// before it, shorter names first and names of one length in byte order:
// node1 ... node10, or zero-padded names.
func ascendingNames(nodes []index.Node) bool {
	for i := 1; i < len(nodes); i++ {
		a, b := nodes[i-1].Name, nodes[i].Name
		if len(a) > len(b) || (len(a) == len(b) && a >= b) {
			return false
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
