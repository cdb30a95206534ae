package inventory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/idset"
	"github.com/nodesift/sift/index"
	"github.com/valyala/fastjson"
)

// fluxRParsers are reused across documents.
var fluxRParsers fastjson.ParserPool

// isFluxR reports whether data is a Flux R document: a JSON object with
// both "version" and "execution" members.
func isFluxR(data []byte, top []member) bool {
	return hasKey(data, top, "version") && hasKey(data, top, "execution")
}

// ParseFluxR reads a Flux R document (RFC 20, version 1) into one node per
// execution target, in ascending rank order: ranks from the R_lite entries'
// `rank` idsets, hostnames from `execution.nodelist` (RFC 29 hostlists,
// given to the sorted ranks one to one), properties from
// `execution.properties` (name -> idset of ranks), CPUs from each rank's
// `core` idset and GPUs as gres `gpu`. Invalid documents are refused with
// flux-core's (librlist rlist_from_json) messages where it has one.
func ParseFluxR(data []byte) ([]index.Node, error) {
	return parseFluxR("Flux R", data, DefaultLimits())
}

// parseFluxRFile is ParseFluxR in the shape of Load's format table.
func parseFluxRFile(file string, data []byte, lim Limits) ([]index.Node, []Warning, error) {
	nodes, err := parseFluxR(file, data, lim.orDefault())
	return nodes, nil, err
}

// fluxTypeName names a JSON value's type as jansson's unpack errors do.
func fluxTypeName(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeObject:
		return "object"
	case fastjson.TypeArray:
		return "array"
	case fastjson.TypeString:
		return "string"
	case fastjson.TypeNumber:
		if strings.ContainsAny(v.String(), ".eE") {
			return "real"
		}
		return "integer"
	case fastjson.TypeTrue:
		return "true"
	case fastjson.TypeFalse:
		return "false"
	}
	return "null"
}

func fluxInteger(v *fastjson.Value) bool {
	return v.Type() == fastjson.TypeNumber && fluxTypeName(v) == "integer"
}

// fluxMember returns the value of key in o as jansson sees it (the last of
// duplicate keys), or nil.
func fluxMember(o *fastjson.Object, key string) *fastjson.Value {
	var last *fastjson.Value
	o.Visit(func(k []byte, v *fastjson.Value) {
		if string(k) == key {
			last = v
		}
	})
	return last
}

func parseFluxR(file string, data []byte, lim Limits) ([]index.Node, error) {
	fail := func(format string, args ...any) error {
		return &Error{File: file, Msg: fmt.Sprintf(format, args...)}
	}
	over := func(what string, err error) error {
		return &Error{File: file, Msg: what, Err: err}
	}
	if k := fluxPropertyCount(data); k > lim.MaxFeatures {
		return nil, over("execution.properties", tooMany(k, "properties", lim.MaxFeatures))
	}
	p := fluxRParsers.Get()
	defer fluxRParsers.Put(p)
	doc, err := p.ParseBytes(data)
	if err != nil {
		return nil, &Error{File: file, Msg: "invalid JSON", Err: err}
	}
	top, err := doc.Object()
	if err != nil {
		return nil, fail("Expected object, got %s", fluxTypeName(doc))
	}
	// rlist_from_json unpacks "{s:i s?O s:{s:o s?o s?o s?i s?F s?F}}".
	version := fluxMember(top, "version")
	if version == nil {
		return nil, fail("Object item not found: version")
	}
	if !fluxInteger(version) {
		return nil, fail("Expected integer, got %s", fluxTypeName(version))
	}
	execV := fluxMember(top, "execution")
	if execV == nil {
		return nil, fail("Object item not found: execution")
	}
	exec, err := execV.Object()
	if err != nil {
		return nil, fail("Expected object, got %s", fluxTypeName(execV))
	}
	rlite := fluxMember(exec, "R_lite")
	if rlite == nil {
		return nil, fail("Object item not found: R_lite")
	}
	if v := fluxMember(exec, "nslots"); v != nil && !fluxInteger(v) {
		return nil, fail("Expected integer, got %s", fluxTypeName(v))
	}
	for _, k := range []string{"starttime", "expiration"} {
		if v := fluxMember(exec, k); v != nil && v.Type() != fastjson.TypeNumber {
			return nil, fail("Expected real, got %s", fluxTypeName(v))
		}
	}
	if n, _ := version.Int64(); n != 1 {
		return nil, fail("invalid version=%s", version.String())
	}

	byRank := make(map[uint32]*index.Node)
	entries, _ := rlite.Array() // a non-array R_lite holds no entries
	budget := nodeBudget{max: lim.MaxNodes}
	for _, e := range entries {
		if err := appendRankEntry(byRank, &budget, e, fail, over); err != nil {
			return nil, err
		}
	}
	nodes := make([]index.Node, 0, len(byRank))
	for _, n := range byRank {
		nodes = append(nodes, *n)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Rank < nodes[j].Rank })

	nodelist := fluxMember(exec, "nodelist")
	if nodelist == nil {
		return nil, fail("execution.nodelist is missing: sift needs a hostname for every rank")
	}
	if err := assignHosts(nodes, nodelist, fail); err != nil {
		return nil, err
	}
	if props := fluxMember(exec, "properties"); props != nil {
		if err := assignProperties(nodes, props, lim.MaxFeatures, fail, over); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}

// fluxPropertyCount counts the members of execution.properties without
// parsing the document (the JSON parser makes a value per member), or
// returns 0 when data does not hold them.
func fluxPropertyCount(data []byte) int {
	top, ok := topMembers(data)
	if !ok {
		return 0
	}
	exec, ok := lastMember(data, top, "execution")
	if !ok || data[exec.valStart] != '{' {
		return 0
	}
	var ms []member
	sc := scanner{b: data}
	if _, err := sc.object(exec.valStart, 2, &ms); err != nil {
		return 0
	}
	props, ok := lastMember(data, ms, "properties")
	if !ok {
		return 0
	}
	return topLevelKeys(data[props.valStart:props.valEnd])
}

// appendRankEntry adds the ranks of one R_lite entry ({"rank": idset,
// "children": {name: idset}}); a rank named by several entries gathers all
// their children.
func appendRankEntry(byRank map[uint32]*index.Node, budget *nodeBudget, e *fastjson.Value, fail func(string, ...any) error, over func(string, error) error) error {
	o, err := e.Object()
	if err != nil {
		return fail("Expected object, got %s", fluxTypeName(e))
	}
	rankV := fluxMember(o, "rank")
	if rankV == nil {
		return fail("Object item not found: rank")
	}
	rankB, err := rankV.StringBytes()
	if err != nil {
		return fail("Expected string, got %s", fluxTypeName(rankV))
	}
	children := fluxMember(o, "children")
	if children == nil {
		return fail("Object item not found: children")
	}
	ranks, err := idset.Decode(string(rankB))
	if err != nil {
		return fail("invalid idset '%s' in R_lite rank", rankB)
	}
	// A rank several entries name counts once: take only the new ones,
	// counting no further than the budget.
	fresh := 0
	for _, r := range ranks.Ranges() {
		for id := uint64(r.Lo); id <= uint64(r.Hi) && fresh <= budget.max; id++ {
			if byRank[uint32(id)] == nil {
				fresh++
			}
		}
	}
	if fresh > budget.max {
		fresh = int(min(ranks.Count(), 1<<40))
	}
	if err := budget.take(fresh); err != nil {
		return over("R_lite rank "+shorten(string(rankB)), err)
	}
	var cores, gpus uint64
	if co, err := children.Object(); err == nil {
		var cerr error
		co.Visit(func(k []byte, v *fastjson.Value) {
			b, err := v.StringBytes()
			if err != nil {
				cerr = fail("children value for %q is not a string", k)
				return
			}
			ids, err := idset.Decode(string(b))
			if err != nil {
				cerr = fail("invalid idset '%s' for %s", b, k)
				return
			}
			switch string(k) {
			case "core":
				cores += ids.Count()
			case "gpu":
				gpus += ids.Count()
			}
		})
		if cerr != nil {
			return cerr
		}
	}
	for _, r := range ranks.Ranges() {
		for id := uint64(r.Lo); id <= uint64(r.Hi); id++ {
			n := byRank[uint32(id)]
			if n == nil {
				n = &index.Node{Rank: uint32(id)}
				byRank[uint32(id)] = n
			}
			n.CPUs += int(cores)
			if gpus > 0 {
				if len(n.Gres) == 0 {
					n.Gres = []index.Gres{{Name: "gpu"}}
				}
				n.Gres[0].Count += gpus
			}
		}
	}
	return nil
}

// assignHosts gives the nodelist's hosts, in order, to the nodes in rank
// order; the counts must agree, as in rlist_assign_hostlist.
func assignHosts(nodes []index.Node, nodelist *fastjson.Value, fail func(string, ...any) error) error {
	var names []string
	items, _ := nodelist.Array() // flux-core reads a non-array as empty
	for _, it := range items {
		b, err := it.StringBytes()
		if err != nil {
			continue // hostlist_append(NULL) adds nothing
		}
		l, err := hostlist.Parse(hostlist.Flux, string(b))
		if err != nil {
			return fail("invalid hostlist '%s' in nodelist", b)
		}
		if len(names)+l.Count() > len(nodes) {
			return fail("nodelist has more hosts than the %d ranks of R_lite", len(nodes))
		}
		hosts, err := l.Expand(len(nodes) - len(names))
		if err != nil {
			return fail("nodelist has more hosts than the %d ranks of R_lite", len(nodes))
		}
		names = append(names, hosts...)
	}
	if len(names) != len(nodes) {
		return fail("nodelist has %d hosts for %d ranks", len(names), len(nodes))
	}
	seen := make(map[string]uint32, len(names))
	for i := range nodes {
		if prev, dup := seen[names[i]]; dup {
			return fail("host %q is both rank %d and rank %d; sift needs distinct hostnames", names[i], prev, nodes[i].Rank)
		}
		seen[names[i]] = nodes[i].Rank
		nodes[i].Name = names[i]
	}
	return nil
}

// assignProperties applies execution.properties as rlist_assign_properties
// does: every entry is checked first, then each is applied, refusing ranks
// that are not in R_lite.
func assignProperties(nodes []index.Node, props *fastjson.Value, maxFeatures int, fail func(string, ...any) error, over func(string, error) error) error {
	o, err := props.Object()
	if err != nil {
		return fail("properties must be an object")
	}
	type prop struct {
		name string
		ids  *idset.Set
	}
	// jansson keeps the last value of a duplicate key at the first's place.
	var list []prop
	at := make(map[string]int)
	var perr error
	o.Visit(func(k []byte, v *fastjson.Value) {
		if perr != nil {
			return
		}
		name := string(k)
		b, err := v.StringBytes()
		if err != nil {
			perr = fail("properties value '%s' not a string", v.String())
			return
		}
		if i := strings.IndexAny(name, "^&'\"`|()"); i >= 0 {
			perr = fail("invalid character '%c' in property \"%s\"", name[i], name)
			return
		}
		ids, err := idset.Decode(string(b))
		if err != nil {
			perr = fail("invalid idset '%s' specified for property \"%s\"", b, name)
			return
		}
		if i, ok := at[name]; ok {
			list[i].ids = ids
			return
		}
		at[name] = len(list)
		list = append(list, prop{name, ids})
	})
	if perr != nil {
		return perr
	}
	byRank := make(map[uint32]int, len(nodes))
	var known []idset.Range
	for i := range nodes {
		byRank[nodes[i].Rank] = i
		if k := len(known); k > 0 && known[k-1].Hi+1 == nodes[i].Rank {
			known[k-1].Hi = nodes[i].Rank
		} else {
			known = append(known, idset.Range{Lo: nodes[i].Rank, Hi: nodes[i].Rank})
		}
	}
	for _, p := range list {
		unknown := subtractRanges(p.ids.Ranges(), known)
		if len(unknown) > 0 {
			set := idset.FromRanges(unknown)
			word := "ranks"
			if set.Count() == 1 {
				word = "rank"
			}
			return fail("%s %s not found in target resource list", word, set.Encode(idset.Ranged))
		}
		for _, r := range p.ids.Ranges() {
			for id := uint64(r.Lo); id <= uint64(r.Hi); id++ {
				n := &nodes[byRank[uint32(id)]]
				if len(n.Features) >= maxFeatures {
					return over(fmt.Sprintf("properties of rank %d", n.Rank), tooMany(len(n.Features)+1, "properties", maxFeatures))
				}
				n.Features = append(n.Features, p.name)
			}
		}
	}
	return nil
}

// subtractRanges returns the ids of a (ascending, disjoint ranges) that are
// not in b (likewise), as ranges.
func subtractRanges(a, b []idset.Range) []idset.Range {
	var out []idset.Range
	j := 0
	for _, r := range a {
		lo := uint64(r.Lo)
		hi := uint64(r.Hi)
		for j < len(b) && uint64(b[j].Hi) < lo {
			j++
		}
		for k := j; k < len(b) && uint64(b[k].Lo) <= hi && lo <= hi; k++ {
			if uint64(b[k].Lo) > lo {
				out = append(out, idset.Range{Lo: uint32(lo), Hi: b[k].Lo - 1})
			}
			lo = uint64(b[k].Hi) + 1
		}
		if lo <= hi {
			out = append(out, idset.Range{Lo: uint32(lo), Hi: uint32(hi)})
		}
	}
	return out
}
