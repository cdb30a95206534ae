package inventory

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
)

// isNodeFile reports whether data looks like a sift node file: JSON text
// whose first value is an object. Formats that are also JSON objects (Flux
// R, scontrol --json) must be detected before it in the formats table.
func isNodeFile(data []byte, _ []member) bool {
	i := (&scanner{b: data}).ws(0)
	return i < len(data) && data[i] == '{'
}

// ParseNodeFile reads a sift node file: a JSON document {"nodes":[...]} or
// JSON Lines with one node object per line. file names data in errors and
// warnings.
func ParseNodeFile(file string, data []byte) ([]index.Node, []Warning, error) {
	return parseNodeFile(file, data, DefaultLimits())
}

func parseNodeFile(file string, data []byte, lim Limits) ([]index.Node, []Warning, error) {
	lim = lim.orDefault()
	r := &nodeReader{file: file, data: data, sc: scanner{b: data}, names: make(map[string]int), lim: lim, budget: nodeBudget{max: lim.MaxNodes}}
	var err error
	if r.isJSONLines() {
		err = r.lines()
	} else {
		err = r.document()
	}
	if err != nil {
		return nil, nil, err
	}
	if err := r.checkRanks(); err != nil {
		return nil, nil, err
	}
	return r.nodes, r.warnings, nil
}

type nodeReader struct {
	file     string
	data     []byte
	sc       scanner
	newlines []int // offsets of '\n', computed on first use
	parser   fastjson.Parser
	members  []member
	nodes    []index.Node
	warnings []Warning
	names    map[string]int      // node name -> line
	lists    map[string][]string // string lists by their JSON text
	ranked   bool                // some node has an explicit rank
	lim      Limits
	budget   nodeBudget
}

// position returns the 1-based line and byte column of offset off.
func (r *nodeReader) position(off int) (line, col int) {
	if r.newlines == nil {
		r.newlines = make([]int, 0, bytes.Count(r.data, []byte{'\n'}))
		for i := 0; ; i++ {
			k := bytes.IndexByte(r.data[i:], '\n')
			if k < 0 {
				break
			}
			i += k
			r.newlines = append(r.newlines, i)
		}
	}
	n := sort.SearchInts(r.newlines, off)
	start := 0
	if n > 0 {
		start = r.newlines[n-1] + 1
	}
	return n + 1, off - start + 1
}

func (r *nodeReader) errAt(off int, node, field, format string, args ...any) *Error {
	line, col := r.position(off)
	return &Error{File: r.file, Line: line, Column: col, Offset: off, Node: node, Field: field,
		Msg: fmt.Sprintf(format, args...)}
}

func (r *nodeReader) syntax(e *position.Error) *Error {
	return r.errAt(e.Offset, "", "", "invalid JSON: %s", e.Msg)
}

// lineEnd returns the offset of the '\n' ending the line that holds i, or
// len(data).
func (r *nodeReader) lineEnd(i int) int {
	if k := bytes.IndexByte(r.data[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(r.data)
}

// isJSONLines decides the layout: JSON Lines when the first non-blank line
// is a complete JSON object on its own without a "nodes" member.
func (r *nodeReader) isJSONLines() bool {
	i := r.sc.ws(0)
	end := r.lineEnd(i)
	sc := scanner{b: r.data[:end]}
	r.members = r.members[:0]
	if i >= end || r.data[i] != '{' {
		return false
	}
	stop, err := sc.object(i, 1, &r.members)
	if err != nil || sc.ws(stop) != end {
		return false
	}
	for _, m := range r.members {
		if string(r.data[m.keyStart:m.keyEnd]) == `"nodes"` {
			return false
		}
	}
	return true
}

// minNodeBytes is the size of the smallest node object, {"name":"a"}.
const minNodeBytes = 12

// capacity guesses how many nodes the file holds, from its lines but never
// more than its bytes or the node limit allow, so a file of blank lines
// cannot make the reader reserve room for millions of nodes.
func (r *nodeReader) capacity() int {
	return min(bytes.Count(r.data, []byte{'\n'})+1, len(r.data)/minNodeBytes+1, r.lim.MaxNodes)
}

func (r *nodeReader) lines() error {
	r.nodes = make([]index.Node, 0, r.capacity())
	for i := 0; i < len(r.data); {
		end := r.lineEnd(i)
		sc := scanner{b: r.data[:end]}
		start := sc.ws(i)
		if start < end {
			if r.data[start] != '{' {
				return r.errAt(start, "", "", "expected a node object on each line")
			}
			r.sc = sc // a node may not run past its line
			stop, err := r.node(start)
			if err != nil {
				return err
			}
			if k := sc.ws(stop); k < end {
				return r.errAt(k, "", "", "unexpected %s after the node object, expected the end of the line", describe(r.data[k]))
			}
		}
		i = end + 1
	}
	return nil
}

func (r *nodeReader) document() error {
	i := r.sc.ws(0)
	if i >= len(r.data) || r.data[i] != '{' {
		return r.errAt(i, "", "", `expected a JSON object {"nodes":[...]}`)
	}
	var top []member
	end, err := r.sc.object(i, 1, &top)
	if err != nil {
		return r.syntax(err)
	}
	if k := r.sc.ws(end); k < len(r.data) {
		return r.errAt(k, "", "", "unexpected %s after the JSON document, expected the end of the file", describe(r.data[k]))
	}
	var nodes *member
	for k := range top {
		m := &top[k]
		key := string(r.data[m.keyStart:m.keyEnd])
		if key != `"nodes"` {
			return r.errAt(m.keyStart, "", "", `unknown field %s, expected "nodes"`, key)
		}
		if nodes != nil {
			return r.errAt(m.keyStart, "", "", `duplicate field "nodes"`)
		}
		nodes = m
	}
	if nodes == nil {
		return r.errAt(i, "", "", `missing field "nodes"`)
	}
	if r.data[nodes.valStart] != '[' {
		return r.errAt(nodes.valStart, "", "nodes", "expected an array of node objects")
	}
	// The whole document was scanned above, so the array is valid JSON:
	// each element ends where its own scan stops, then a ',' or the ']'.
	r.nodes = make([]index.Node, 0, r.capacity())
	i = r.sc.ws(nodes.valStart + 1)
	for r.data[i] != ']' {
		if r.data[i] != '{' {
			return r.errAt(i, "", "", "expected a node object")
		}
		end, err := r.node(i)
		if err != nil {
			return err
		}
		if i = r.sc.ws(end); r.data[i] == ',' {
			i = r.sc.ws(i + 1)
		}
	}
	return nil
}

// node reads the node object at data[start] and returns where it ends.
func (r *nodeReader) node(start int) (int, error) {
	r.members = r.members[:0]
	end, serr := r.sc.object(start, 1, &r.members)
	if serr != nil {
		return end, r.syntax(serr)
	}
	// The JSON parser makes a value per item: count them first.
	if k, at := largestContainer(r.data[start:end], 2); k > r.lim.MaxFeatures {
		return end, r.overItems(start+at, k)
	}
	v, perr := r.parser.ParseBytes(r.data[start:end])
	if perr != nil {
		return end, r.errAt(start, "", "", "invalid JSON: %v", perr)
	}
	obj, perr := v.Object()
	if perr != nil {
		return end, r.errAt(start, "", "", "expected a node object")
	}
	// fastjson visits members in source order, so member k of the scan is
	// member k of the visit.
	var fields [numFields]*fastjson.Value
	var at [numFields]int
	var ferr *Error
	k := 0
	obj.Visit(func(key []byte, val *fastjson.Value) {
		k++
		if ferr != nil || k > len(r.members) {
			return
		}
		m := r.members[k-1]
		f, ok := fieldByName(key)
		if !ok {
			ferr = r.errAt(m.keyStart, "", "", "unknown field %q", key)
			return
		}
		if fields[f] != nil {
			ferr = r.errAt(m.keyStart, "", "", "duplicate field %q", key)
			return
		}
		fields[f] = val
		at[f] = k - 1
	})
	if ferr != nil {
		return end, ferr
	}
	if k != len(r.members) {
		return end, r.errAt(start, "", "", "internal error: JSON scanner and parser disagree")
	}
	nv := fields[fName]
	if nv == nil {
		return end, r.errAt(start, "", "", `missing required field "name"`)
	}
	nameAt := r.members[at[fName]].valStart
	name, err := r.name(nv, nameAt)
	if err != nil {
		return end, err
	}
	line, _ := r.position(start)
	if prev, dup := r.names[name]; dup {
		return end, r.errAt(nameAt, name, "name", "duplicate node name (first on line %d)", prev)
	}
	r.names[name] = line

	if err := r.budget.take(1); err != nil {
		e := r.errAt(start, name, "", "one node too many")
		e.Err = err
		return end, e
	}
	n := index.Node{Name: name, Rank: uint32(len(r.nodes))}
	for f := field(0); f < numFields; f++ {
		val := fields[f]
		if val == nil || f == fName {
			continue
		}
		m := r.members[at[f]]
		if err := r.setField(&n, f, val, m); err != nil {
			return end, err
		}
	}
	r.nodes = append(r.nodes, n)
	return end, nil
}

// overItems reports an array or object at offset off, inside the node whose
// members r.members holds, of k items: more than Limits.MaxFeatures.
func (r *nodeReader) overItems(off, k int) *Error {
	field, what := "", "items in one array or object"
	for _, m := range r.members {
		if m.valStart <= off && off < m.valEnd {
			field = strings.Trim(string(r.data[m.keyStart:m.keyEnd]), `"`)
			if off == m.valStart {
				what = field
				if field == "extra" {
					what = "extra keys"
				}
			}
		}
	}
	e := r.errAt(off, "", field, "too long")
	e.Err = tooMany(k, what, r.lim.MaxFeatures)
	return e
}

func (r *nodeReader) name(v *fastjson.Value, off int) (string, error) {
	b, err := v.StringBytes()
	if err != nil {
		return "", r.errAt(off, "", "name", "expected a string")
	}
	if len(b) == 0 {
		return "", r.errAt(off, "", "name", "must not be empty")
	}
	if i := bytes.IndexAny(b, " \t\r\n,[]"); i >= 0 {
		return "", r.errAt(off, "", "name", "must not contain %q (names are written into hostlists)", b[i])
	}
	return string(b), nil
}

// field numbers the fields of a node object.
type field int

const (
	fName field = iota
	fExtra
	fFeatures
	fRank
	fCPUs
	fSockets
	fCoresPerSocket
	fThreadsPerCore
	fBoards
	fMemoryMB
	fGres
	fWeight
	fState
	fPartitions
	numFields
)

var fieldNames = [numFields]string{
	fName:           "name",
	fExtra:          "extra",
	fFeatures:       "features",
	fRank:           "rank",
	fCPUs:           "cpus",
	fSockets:        "sockets",
	fCoresPerSocket: "cores_per_socket",
	fThreadsPerCore: "threads_per_core",
	fBoards:         "boards",
	fMemoryMB:       "memory_mb",
	fGres:           "gres",
	fWeight:         "weight",
	fState:          "state",
	fPartitions:     "partitions",
}

func fieldByName(key []byte) (field, bool) {
	// A switch on the constant names: the compiler dispatches on length
	// and content, where a loop compared every name in turn.
	switch string(key) {
	case "name":
		return fName, true
	case "extra":
		return fExtra, true
	case "features":
		return fFeatures, true
	case "rank":
		return fRank, true
	case "cpus":
		return fCPUs, true
	case "sockets":
		return fSockets, true
	case "cores_per_socket":
		return fCoresPerSocket, true
	case "threads_per_core":
		return fThreadsPerCore, true
	case "boards":
		return fBoards, true
	case "memory_mb":
		return fMemoryMB, true
	case "gres":
		return fGres, true
	case "weight":
		return fWeight, true
	case "state":
		return fState, true
	case "partitions":
		return fPartitions, true
	}
	return 0, false
}

// states are the accepted node states, in lower case.
var states = []string{"idle", "mixed", "allocated", "down", "drain", "drained", "draining"}

func (r *nodeReader) setField(n *index.Node, f field, v *fastjson.Value, m member) error {
	name := fieldNames[f]
	bad := func(format string, args ...any) error {
		return r.errAt(m.valStart, n.Name, name, format, args...)
	}
	switch f {
	case fExtra:
		return r.extra(n, v, m)
	case fFeatures:
		list, err := r.strings(n, f, v, m)
		n.Features = list
		return err
	case fPartitions:
		list, err := r.strings(n, f, v, m)
		n.Partitions = list
		return err
	case fState:
		b, err := v.StringBytes()
		if err != nil {
			return bad("expected a string, one of %s", strings.Join(states, ", "))
		}
		for _, st := range states {
			if bytes.EqualFold(b, []byte(st)) {
				n.State = st
				return nil
			}
		}
		return bad("unknown state %q, expected one of %s", b, strings.Join(states, ", "))
	case fGres:
		return r.gres(n, v, m)
	}
	u, err := r.uint(m, uintLimit(f))
	if err != nil {
		return bad("%s", err)
	}
	r.ranked = setUint(n, f, u) || r.ranked
	return nil
}

// uintLimit is the largest value of the integer field f.
func uintLimit(f field) uint64 {
	switch f {
	case fRank, fWeight:
		return math.MaxUint32
	case fMemoryMB:
		return math.MaxUint64
	}
	return math.MaxInt32
}

// setUint sets the integer field f of n to u (within uintLimit(f)) and
// reports whether f is the rank.
func setUint(n *index.Node, f field, u uint64) bool {
	switch f {
	case fRank:
		n.Rank = uint32(u)
		return true
	case fWeight:
		n.Weight = uint32(u)
	case fCPUs:
		n.CPUs = int(u)
	case fSockets:
		n.Sockets = int(u)
	case fCoresPerSocket:
		n.CoresPerSocket = int(u)
	case fThreadsPerCore:
		n.ThreadsPerCore = int(u)
	case fBoards:
		n.Boards = int(u)
	case fMemoryMB:
		n.MemoryMB = u
	}
	return false
}

// uint reads the number spanning m's value as a non-negative integer no
// larger than limit, from its source text so nothing is lost to float64.
func (r *nodeReader) uint(m member, limit uint64) (uint64, error) {
	if u, ok := shortUint(r.data[m.valStart:m.valEnd]); ok && u <= limit {
		return u, nil
	}
	text := string(r.data[m.valStart:m.valEnd])
	if text == "" || !(text[0] == '-' || isDigit(text[0])) {
		return 0, fmt.Errorf("expected a non-negative integer")
	}
	if text[0] == '-' {
		return 0, fmt.Errorf("must not be negative, got %s", text)
	}
	if strings.ContainsAny(text, ".eE") {
		return 0, fmt.Errorf("expected an integer, got %s", text)
	}
	u, err := strconv.ParseUint(text, 10, 64)
	if err != nil || u > limit {
		return 0, fmt.Errorf("%s is out of range, expected at most %d", text, limit)
	}
	return u, nil
}

func (r *nodeReader) strings(n *index.Node, f field, v *fastjson.Value, m member) ([]string, error) {
	// Most nodes repeat a few feature and partition lists: the nodes with
	// the same list text share one slice (index.Node lists are read-only).
	raw := r.data[m.valStart:m.valEnd]
	if list, ok := r.lists[string(raw)]; ok {
		return list, nil
	}
	list, err := r.readStrings(n, f, v, m)
	if err == nil && len(r.lists) < maxSharedLists {
		if r.lists == nil {
			r.lists = map[string][]string{}
		}
		r.lists[string(raw)] = list
	}
	return list, err
}

// maxSharedLists bounds the distinct lists a reader shares.
const maxSharedLists = 4096

func (r *nodeReader) readStrings(n *index.Node, f field, v *fastjson.Value, m member) ([]string, error) {
	arr, err := v.Array()
	if err != nil {
		return nil, r.errAt(m.valStart, n.Name, fieldNames[f], "expected an array of strings")
	}
	if len(arr) > r.lim.MaxFeatures {
		e := r.errAt(m.valStart, n.Name, fieldNames[f], "list")
		e.Err = tooMany(len(arr), fieldNames[f], r.lim.MaxFeatures)
		return nil, e
	}
	list := make([]string, 0, len(arr))
	for i, e := range arr {
		b, err := e.StringBytes()
		if err != nil {
			return nil, r.errAt(m.valStart, n.Name, fieldNames[f], "element %d: expected a string", i)
		}
		if len(b) == 0 {
			return nil, r.errAt(m.valStart, n.Name, fieldNames[f], "element %d: must not be empty", i)
		}
		list = append(list, string(b))
	}
	return list, nil
}

// extra keeps the node's extra data as raw JSON text: an object's exact
// source text, or a string's contents as slurmd --extra would pass them.
func (r *nodeReader) extra(n *index.Node, v *fastjson.Value, m member) error {
	raw := r.data[m.valStart:m.valEnd]
	if v.Type() == fastjson.TypeString {
		raw, _ = v.StringBytes()
	}
	if k := topLevelKeys(raw); k > r.lim.MaxFeatures {
		e := r.errAt(m.valStart, n.Name, "extra", "object")
		e.Err = tooMany(k, "extra keys", r.lim.MaxFeatures)
		return e
	}
	switch v.Type() {
	case fastjson.TypeObject:
		n.Extra = bytes.Clone(r.data[m.valStart:m.valEnd])
		r.checkExtra(n, n.Extra, m)
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		n.Extra = bytes.Clone(b)
		if n.Extra == nil {
			n.Extra = []byte{}
		}
		r.checkExtra(n, b, m)
	case fastjson.TypeNull:
		n.Extra = nil
	default:
		return r.errAt(m.valStart, n.Name, "extra", "expected a JSON object or a string holding JSON")
	}
	return nil
}

// checkExtra warns when slurmctld would drop raw as n's extra data: invalid
// JSON, or nesting past json-c's depth limit (Slurm logs "Failed to decode
// extra" for both).
func (r *nodeReader) checkExtra(n *index.Node, raw []byte, m member) {
	if ast.ExtraUsable(raw) {
		return
	}
	why := "is not valid JSON"
	if fastjson.ValidateBytes(raw) == nil {
		why = fmt.Sprintf("nests a value %d arrays and objects deep (json-c's limit)", extra.MaxDepth)
	}
	line, _ := r.position(m.valStart)
	r.warnings = append(r.warnings, Warning{File: r.file, Line: line, Node: n.Name,
		Msg: "extra " + why + ", so the node has no extra data and matches no constrained job"})
}

// gres reads generic resources given as strings "name[:type][:count]" or as
// objects {"name":..., "type":..., "count":...}; count defaults to 1.
func (r *nodeReader) gres(n *index.Node, v *fastjson.Value, m member) error {
	bad := func(i int, format string, args ...any) error {
		return r.errAt(m.valStart, n.Name, "gres", "element %d: %s", i, fmt.Sprintf(format, args...))
	}
	arr, err := v.Array()
	if err != nil {
		return r.errAt(m.valStart, n.Name, "gres", `expected an array of "name[:type][:count]" strings or {"name","type","count"} objects`)
	}
	n.Gres = make([]index.Gres, 0, len(arr))
	for i, e := range arr {
		var g index.Gres
		switch e.Type() {
		case fastjson.TypeString:
			b, _ := e.StringBytes()
			var ok bool
			if g, ok = parseGres(string(b)); !ok {
				return bad(i, `invalid gres %q, expected "name[:type][:count]"`, b)
			}
		case fastjson.TypeObject:
			o, _ := e.Object()
			g.Count = 1
			var oerr error
			o.Visit(func(key []byte, fv *fastjson.Value) {
				if oerr != nil {
					return
				}
				switch string(key) {
				case "name", "type":
					b, err := fv.StringBytes()
					if err != nil || len(b) == 0 || bytes.ContainsAny(b, ": \t,") {
						oerr = fmt.Errorf("%q: expected a non-empty string without ':', ',' or spaces", position.Clip(string(key)))
					} else if string(key) == "name" {
						g.Name = string(b)
					} else {
						g.Type = string(b)
					}
				case "count":
					if fv.Type() != fastjson.TypeNumber {
						oerr = fmt.Errorf(`"count": expected a non-negative integer`)
						return
					}
					text := string(fv.MarshalTo(nil))
					c, err := strconv.ParseUint(text, 10, 64)
					if err != nil {
						oerr = fmt.Errorf(`"count": expected a non-negative integer, got %s`, text)
					}
					g.Count = c
				default:
					oerr = fmt.Errorf("unknown field %q, expected name, type or count", position.Clip(string(key)))
				}
			})
			if oerr != nil {
				return bad(i, "%v", oerr)
			}
			if g.Name == "" {
				return bad(i, `missing "name"`)
			}
		default:
			return bad(i, `expected a "name[:type][:count]" string or a {"name","type","count"} object`)
		}
		n.Gres = append(n.Gres, g)
	}
	return nil
}

// parseGres reads "gpu", "gpu:4", "gpu:a100" or "gpu:a100:4".
func parseGres(s string) (index.Gres, bool) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return index.Gres{}, false
	}
	for _, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t,") {
			return index.Gres{}, false
		}
	}
	g := index.Gres{Name: parts[0], Count: 1}
	rest := parts[1:]
	if len(rest) > 0 && isDigit(rest[len(rest)-1][0]) {
		c, err := gresCount(rest[len(rest)-1])
		if err != nil {
			return index.Gres{}, false
		}
		g.Count = c
		rest = rest[:len(rest)-1]
	} else if len(rest) == 2 {
		return index.Gres{}, false
	}
	if len(rest) == 1 {
		g.Type = rest[0]
	}
	return g, true
}

// checkRanks rejects two nodes with the same rank; only explicit ranks can
// collide, so files without them skip the check.
func (r *nodeReader) checkRanks() error {
	if !r.ranked {
		return nil
	}
	seen := make(map[uint32]string, len(r.nodes))
	for _, n := range r.nodes {
		if prev, dup := seen[n.Rank]; dup {
			line := r.names[n.Name]
			return &Error{File: r.file, Line: line, Node: n.Name, Field: "rank",
				Msg: fmt.Sprintf("rank %d is already node %q's", n.Rank, position.Clip(prev))}
		}
		seen[n.Rank] = n.Name
	}
	return nil
}

// shortUint reads the usual case of uint without allocating: 1 to 18
// digits, no leading zero unless alone.
func shortUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	return u, true
}
