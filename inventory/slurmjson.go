package inventory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
)

// ParseSlurmJSON reads the output of `scontrol show node --json` (an object
// with a "nodes" array) or `sinfo --json` (an object with a "sinfo" array),
// in the data_parser shapes of Slurm 23.02 and later; older string-valued
// fields (features "a,b", state "idle") are accepted too. Nodes come out in
// the order Slurm lists them, which is its node table order.
func ParseSlurmJSON(name string, data []byte) ([]index.Node, []Warning, error) {
	return parseSlurmJSON(name, data, DefaultLimits())
}

func parseSlurmJSON(name string, data []byte, lim Limits) ([]index.Node, []Warning, error) {
	lim = lim.orDefault()
	// scontrol's node objects sit at depth 3; the JSON parser makes a value
	// per item of every list inside one, so count them first. (sinfo lists
	// node names in arrays, which its own limit bounds.)
	if top, ok := topMembers(data); ok && !hasKey(data, top, "sinfo") {
		if k, at := largestContainer(data, 3); k > lim.MaxFeatures {
			return nil, nil, &Error{File: name, Msg: fmt.Sprintf("the array or object at byte %d", at), Err: tooMany(k, "items", lim.MaxFeatures)}
		}
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return nil, nil, &Error{File: name, Msg: "invalid JSON", Err: err}
	}
	if errs := v.GetArray("errors"); len(errs) > 0 {
		return nil, nil, &Error{File: name, Msg: fmt.Sprintf("slurm reported an error: %s", errs[0].String())}
	}
	if v.Exists("sinfo") {
		return parseSinfo(name, v.Get("sinfo"), lim)
	}
	if v.Exists("nodes") {
		return parseScontrolNodes(name, v.Get("nodes"), lim)
	}
	return nil, nil, &Error{File: name, Msg: `expected a "nodes" (scontrol show node --json) or "sinfo" (sinfo --json) array`}
}

// isSlurmJSON reports whether data looks like scontrol or sinfo JSON output.
func isSlurmJSON(data []byte, ms []member) bool {
	// A sift node file also has "nodes"; Slurm's output carries "meta" or
	// data_parser field names that sift's format does not use.
	if hasKey(data, ms, "sinfo") || hasKey(data, ms, "meta") || hasKey(data, ms, "last_update") {
		return true
	}
	nodes, ok := lastMember(data, ms, "nodes")
	if !ok || data[nodes.valStart] != '[' {
		return false
	}
	sc := scanner{b: data}
	i := sc.ws(nodes.valStart + 1)
	if data[i] != '{' {
		return false
	}
	var first []member
	if _, err := sc.object(i, 2, &first); err != nil {
		return false
	}
	return hasKey(data, first, "real_memory") || hasKey(data, first, "hostname") || hasKey(data, first, "active_features")
}

func parseScontrolNodes(name string, arr *fastjson.Value, lim Limits) ([]index.Node, []Warning, error) {
	items, err := arr.Array()
	if err != nil {
		return nil, nil, &Error{File: name, Msg: `"nodes" must be an array`}
	}
	budget := nodeBudget{max: lim.MaxNodes}
	if err := budget.take(len(items)); err != nil {
		return nil, nil, &Error{File: name, Msg: `"nodes"`, Err: err}
	}
	r := scontrolReader{lim: lim, out: make([]index.Node, 0, len(items)), seen: make(map[string]bool, len(items))}
	for i, it := range items {
		if err := r.add(name, i, it); err != nil {
			return nil, nil, err
		}
	}
	return r.out, extraWarnings(name, r.out), nil
}

// scontrolReader gathers scontrol's node objects into nodes, in order.
type scontrolReader struct {
	lim  Limits
	out  []index.Node
	seen map[string]bool
}

// add reads it, entry i of the "nodes" array of file name.
func (r *scontrolReader) add(name string, i int, it *fastjson.Value) error {
	n, err := slurmNode(it, r.lim.MaxFeatures)
	if err != nil {
		return &Error{File: name, Msg: fmt.Sprintf("nodes[%d]", i), Err: err}
	}
	if r.seen[n.Name] {
		return &Error{File: name, Msg: fmt.Sprintf("nodes[%d]: duplicate node %q", i, position.Clip(n.Name))}
	}
	r.seen[n.Name] = true
	n.Rank = uint32(len(r.out))
	r.out = append(r.out, n)
	return nil
}

// extraWarnings warns about nodes whose extra data is not valid JSON or nests
// past json-c's depth limit (Slurm logs "Failed to decode extra"): like
// slurmctld, sift keeps such a node without extra data, so it matches no
// constrained job.
func extraWarnings(file string, nodes []index.Node) []Warning {
	var ws []Warning
	for i := range nodes {
		if len(nodes[i].Extra) > 0 && !ast.ExtraUsable(nodes[i].Extra) {
			ws = append(ws, Warning{File: file, Line: 1, Msg: fmt.Sprintf("node %s: extra is not valid JSON or nests a value %d arrays and objects deep (json-c's limit); the node matches no extra constraint", nodes[i].Name, extra.MaxDepth)})
		}
	}
	return ws
}

func slurmNode(v *fastjson.Value, maxFeatures int) (index.Node, error) {
	var n index.Node
	n.Name = string(v.GetStringBytes("name"))
	if n.Name == "" {
		return n, errors.New(`missing "name"`)
	}
	feats := v.Get("features")
	if act := v.Get("active_features"); act != nil {
		// Scheduling uses the active features (node_features plugins may
		// list more available than active ones).
		feats = act
	}
	if k := listLen(feats); k > maxFeatures {
		return n, fmt.Errorf("node %s: %w", n.Name, tooMany(k, "features", maxFeatures))
	}
	n.Features = stringList(feats)
	n.CPUs = int(number(v.Get("cpus")))
	n.Boards = int(number(v.Get("boards")))
	n.Sockets = int(number(v.Get("sockets")))
	n.CoresPerSocket = int(number(v.Get("cores")))
	n.ThreadsPerCore = int(number(v.Get("threads")))
	n.MemoryMB = uint64(number(v.Get("real_memory")))
	n.Weight = uint32(number(v.Get("weight")))
	if g := string(v.GetStringBytes("gres")); g != "" && g != "(null)" {
		gres, err := ParseGres(g)
		if err != nil {
			return n, fmt.Errorf("gres: %w", err)
		}
		n.Gres = gres
	}
	n.State = slurmState(v.Get("state"), v.Get("state_flags"))
	n.Partitions = stringList(v.Get("partitions"))
	if x := v.GetStringBytes("extra"); len(x) > 0 {
		if k := topLevelKeys(x); k > maxFeatures {
			return n, fmt.Errorf("node %s: %w", n.Name, tooMany(k, "extra keys", maxFeatures))
		}
		n.Extra = append([]byte(nil), x...)
	}
	return n, nil
}

// listLen counts the items stringList would read from v, without reading
// them.
func listLen(v *fastjson.Value) int {
	if v == nil {
		return 0
	}
	switch v.Type() {
	case fastjson.TypeArray:
		return len(v.GetArray())
	case fastjson.TypeString:
		return countList(string(v.GetStringBytes()))
	}
	return 0
}

// number reads a data_parser number: a plain JSON number, or the
// {"set":..,"infinite":..,"number":..} object newer releases use.
func number(v *fastjson.Value) float64 {
	if v == nil {
		return 0
	}
	switch v.Type() {
	case fastjson.TypeNumber:
		return v.GetFloat64()
	case fastjson.TypeObject:
		if !v.GetBool("set") || v.GetBool("infinite") {
			return 0
		}
		return v.GetFloat64("number")
	}
	return 0
}

// stringList reads an array of strings or a comma-separated string.
func stringList(v *fastjson.Value) []string {
	if v == nil {
		return nil
	}
	switch v.Type() {
	case fastjson.TypeArray:
		var out []string
		for _, e := range v.GetArray() {
			if s := string(e.GetStringBytes()); s != "" {
				out = append(out, s)
			}
		}
		return out
	case fastjson.TypeString:
		return splitList(string(v.GetStringBytes()))
	}
	return nil
}

// slurmState reduces Slurm's state and flags to sift's base state: any
// DRAIN flag makes the node drain; DOWN, FAIL and FUTURE make it down.
func slurmState(state, flags *fastjson.Value) string {
	all := append(stringList(state), stringList(flags)...)
	base := "idle"
	for _, s := range all {
		switch strings.ToUpper(s) {
		case "DRAIN", "DRAINED", "DRAINING":
			return "drain"
		case "DOWN", "FAIL", "FAILING", "FUTURE":
			base = "down"
		case "MIXED", "MIX":
			if base == "idle" {
				base = "mixed"
			}
		case "ALLOCATED", "ALLOC":
			if base == "idle" {
				base = "allocated"
			}
		}
	}
	return base
}

func parseSinfo(name string, arr *fastjson.Value, lim Limits) ([]index.Node, []Warning, error) {
	items, err := arr.Array()
	if err != nil {
		return nil, nil, &Error{File: name, Msg: `"sinfo" must be an array`}
	}
	r := sinfoReader{lim: lim, pos: map[string]int{}}
	for i, it := range items {
		if err := r.add(name, i, it); err != nil {
			return nil, nil, err
		}
	}
	return r.out, extraWarnings(name, r.out), nil
}

// sinfoReader gathers sinfo's entries into nodes: a node once, in order of
// first mention, with every partition an entry lists it in.
type sinfoReader struct {
	lim Limits
	out []index.Node
	pos map[string]int // index in out by name
}

// add reads it, entry i of the "sinfo" array of file name.
func (r *sinfoReader) add(name string, i int, it *fastjson.Value) error {
	lim, out, pos := r.lim, r.out, r.pos
	defer func() { r.out = out }()
	at := func(err error) error { return &Error{File: name, Msg: fmt.Sprintf("sinfo[%d]", i), Err: err} }
	if k := listLen(it.Get("features", "active")); k > lim.MaxFeatures {
		return at(tooMany(k, "features", lim.MaxFeatures))
	}
	if k := topLevelKeys(it.GetStringBytes("extra")); k > lim.MaxFeatures {
		return at(tooMany(k, "extra keys", lim.MaxFeatures))
	}
	part := string(it.GetStringBytes("partition", "name"))
	for _, e := range it.GetArray("nodes", "nodes") {
		hl, err := hostlist.Parse(hostlist.Slurm, string(e.GetStringBytes()))
		if err != nil {
			return at(err)
		}
		// sinfo lists a node once per partition, so only names not
		// seen before count against the limit; a list that alone
		// names more hosts than it is refused without a walk.
		if k := hl.Count(); k > lim.MaxNodes {
			return at(fmt.Errorf("hostlist %s: %w", shorten(string(e.GetStringBytes())), (&nodeBudget{max: lim.MaxNodes}).take(k)))
		}
		var over error
		hl.Each(func(host string) bool {
			if j, ok := pos[host]; ok {
				if part != "" && !contains(out[j].Partitions, part) {
					out[j].Partitions = append(out[j].Partitions, part)
				}
				return true
			}
			if len(out) >= lim.MaxNodes {
				over = (&nodeBudget{max: lim.MaxNodes, used: len(out)}).take(1)
				return false
			}
			out = append(out, sinfoNode(it, host, part, len(out)))
			pos[host] = len(out) - 1
			return true
		})
		if over != nil {
			return at(over)
		}
	}
	return nil
}

// sinfoNode is the node host of the sinfo entry it.
func sinfoNode(it *fastjson.Value, host, part string, rank int) index.Node {
	n := index.Node{
		Name:           host,
		Rank:           uint32(rank),
		CPUs:           int(number(it.Get("cpus", "maximum"))),
		Sockets:        int(number(it.Get("sockets", "maximum"))),
		CoresPerSocket: int(number(it.Get("cores", "maximum"))),
		ThreadsPerCore: int(number(it.Get("threads", "maximum"))),
		MemoryMB:       uint64(number(it.Get("memory", "maximum"))),
		Weight:         uint32(number(it.Get("weight", "maximum"))),
		Features:       stringList(it.Get("features", "active")),
		State:          slurmState(it.Get("node", "state"), nil),
	}
	if g := string(it.GetStringBytes("gres", "total")); g != "" && g != "(null)" {
		if gres, err := ParseGres(g); err == nil {
			n.Gres = gres
		}
	}
	if x := it.GetStringBytes("extra"); len(x) > 0 {
		n.Extra = append([]byte(nil), x...)
	}
	if part != "" {
		n.Partitions = []string{part}
	}
	return n
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
