package flux

import (
	"sort"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/position"
)

// parsers are reused across calls: a fastjson parser keeps its buffers.
var parsers fastjson.ParserPool

// ParseRFC31 reads an RFC 31 constraint (a JSON object) and returns its
// tree, with flux-core's (librlist) meaning: `properties` is the AND of its
// names (a leading `^` negates; a name also matches the hostname),
// `hostlist` and `ranks` union their strings, `not` negates the AND of its
// items, `{}`, `{"and":[]}` and `{"or":[]}` are true and `{"not":[]}` is
// false. Invalid constraints give an *Error with flux-core's message.
func ParseRFC31(text []byte) (ast.Node, error) {
	if len(text) > MaxLen {
		return nil, &Error{Pos: position.Pos{Offset: MaxLen}, Msg: "constraint longer than " + strconv.Itoa(MaxLen) + " bytes (sift's limit)"}
	}
	return parseRFC31(text)
}

// MaxLen is the longest constraint text, RFC 31 JSON or --requires, that
// sift reads, in bytes: 64 times Slurm's limit on an extra constraint, and
// small enough that compiling the costliest accepted text stays within the
// memory budget of 64 MB plus 32 bytes a byte of input (`a|a|...` of 64 KiB
// peaks at about 35 MB of heap; at 256 KiB it took 140 MB).
const MaxLen = 64 << 10

// parseRFC31 is ParseRFC31 without the length limit, for JSON that sift
// generated from a --requires text that was itself within it.
func parseRFC31(text []byte) (ast.Node, error) {
	sp, err := scanDocument(text)
	if err != nil {
		return nil, err
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(text)
	if err != nil {
		// The scanner is stricter than fastjson; this is only a guard.
		return nil, &Error{Msg: "invalid JSON: " + err.Error()}
	}
	return constraint(v, sp)
}

// constraint converts one constraint object.
func constraint(v *fastjson.Value, sp span) (ast.Node, error) {
	o, err := v.Object()
	if err != nil {
		return nil, &Error{Pos: position.Pos{Offset: sp.off}, Msg: "constraint must be JSON object"}
	}
	// jansson keeps the last of duplicate keys, at the first one's place.
	var (
		key   string
		val   *fastjson.Value
		vsp   span
		i     int
		multi bool
	)
	o.Visit(func(k []byte, kv *fastjson.Value) {
		switch {
		case i == 0:
			key = string(k)
			val, vsp = kv, sp.kids[i]
		case string(k) == key:
			val, vsp = kv, sp.kids[i]
		default:
			multi = true
		}
		i++
	})
	if multi {
		return nil, &Error{Pos: position.Pos{Offset: sp.off}, Msg: "constraint must only contain 1 element"}
	}
	if val == nil {
		return &ast.Const{Start: sp.off, Value: true}, nil
	}
	switch key {
	case "properties":
		return properties(val, vsp)
	case "hostlist":
		return hostlistOp(val, vsp, sp)
	case "ranks":
		return ranksOp(val, vsp, sp)
	case "and", "or", "not":
		return conditional(key, val, vsp)
	}
	return nil, &Error{Pos: position.Pos{Offset: sp.off}, Msg: "unknown constraint operator: " + position.Clip(key)}
}

// properties converts a `properties` array: one name is a leaf, several are
// their AND, none is true.
func properties(v *fastjson.Value, sp span) (ast.Node, error) {
	items, err := v.Array()
	if err != nil {
		return nil, &Error{Pos: position.Pos{Offset: sp.off}, Msg: "properties value must be an array"}
	}
	leaves := make([]ast.Node, 0, len(items))
	for i, it := range items {
		b, err := it.StringBytes()
		if err != nil {
			return nil, &Error{Pos: position.Pos{Offset: sp.kids[i].off}, Msg: "non-string property specified"}
		}
		name := string(b)
		if j := strings.IndexAny(name, "!&'\"`|()"); j >= 0 {
			return nil, &Error{Pos: position.Pos{Offset: sp.kids[i].off},
				Msg: "invalid character '" + name[j:j+1] + "' in property \"" + position.Clip(name) + "\""}
		}
		leaves = append(leaves, propertyLeaf(name, sp.kids[i]))
	}
	switch len(leaves) {
	case 0:
		return &ast.Const{Start: sp.off, Value: true}, nil
	case 1:
		return leaves[0], nil
	}
	return &ast.And{Start: sp.off, X: leaves}, nil
}

// propertyLeaf is one `properties` element, whose text is el: only its
// first `^` negates.
func propertyLeaf(name string, el span) ast.Node {
	if strings.HasPrefix(name, "^") {
		return &ast.Not{Start: el.off, X: &ast.Property{Start: el.off, End: el.end, Name: name[1:]}}
	}
	return &ast.Property{Start: el.off, End: el.end, Name: name}
}

// hostlistOp converts a `hostlist` value (whose constraint object is obj).
// Like flux-core it does not check types: non-string elements are skipped
// and a non-array is empty.
func hostlistOp(v *fastjson.Value, sp, obj span) (ast.Node, error) {
	n := &ast.Hostlist{Start: obj.off, End: obj.end}
	items, err := v.Array()
	if err != nil {
		return n, nil
	}
	for i, it := range items {
		b, err := it.StringBytes()
		if err != nil {
			continue
		}
		s := string(b)
		if !validHostlist(s) {
			return nil, &Error{Pos: position.Pos{Offset: sp.kids[i].off},
				Msg: "invalid hostlist '" + position.Clip(s) + "' in " + position.Clip(string(janssonJSON(nil, v)))}
		}
		n.Exprs = append(n.Exprs, s)
	}
	return n, nil
}

// ranksOp converts a `ranks` value (whose constraint object is obj): the
// union of its idsets. Like flux-core a non-array is empty and a non-string
// element is an invalid idset.
func ranksOp(v *fastjson.Value, sp, obj span) (ast.Node, error) {
	n := &ast.Ranks{Start: obj.off, End: obj.end}
	items, err := v.Array()
	if err != nil {
		return n, nil
	}
	for i, it := range items {
		s := "(null)"
		rs, ok := []ast.RankRange(nil), false
		if b, err := it.StringBytes(); err == nil {
			s = string(b)
			rs, ok = decodeRanks(s)
		}
		if !ok {
			return nil, &Error{Pos: position.Pos{Offset: sp.kids[i].off},
				Msg: "invalid idset '" + position.Clip(s) + "' in " + position.Clip(string(janssonJSON(nil, v)))}
		}
		n.Ranges = append(n.Ranges, rs...)
	}
	n.Ranges = unionRanges(n.Ranges)
	return n, nil
}

// unionRanges sorts ranges and merges those that overlap or touch.
func unionRanges(rs []ast.RankRange) []ast.RankRange {
	if len(rs) < 2 {
		return rs
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if uint64(r.Lo) <= uint64(last.Hi)+1 {
			if r.Hi > last.Hi {
				last.Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// conditional converts `and`, `or` and `not`. `{"or":[]}` is true, as in
// flux-core (and RFC 31); `not` negates the AND of its items.
func conditional(op string, v *fastjson.Value, sp span) (ast.Node, error) {
	items, err := v.Array()
	if err != nil {
		return nil, &Error{Pos: position.Pos{Offset: sp.off}, Msg: op + " operator value must be an array"}
	}
	xs := make([]ast.Node, 0, len(items))
	for i, it := range items {
		x, err := constraint(it, sp.kids[i])
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	switch {
	case op == "and" && len(xs) == 0, op == "or" && len(xs) == 0:
		return &ast.Const{Start: sp.off, Value: true}, nil
	case op == "not" && len(xs) == 0:
		return &ast.Const{Start: sp.off, Value: false}, nil
	case op == "and":
		return &ast.And{Start: sp.off, X: xs}, nil
	case op == "or":
		return &ast.Or{Start: sp.off, X: xs}, nil
	case len(xs) == 1:
		return &ast.Not{Start: sp.off, X: xs[0]}, nil
	}
	return &ast.Not{Start: sp.off, X: &ast.And{Start: sp.off, X: xs}}, nil
}
