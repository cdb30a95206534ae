package inventory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
)

// ParseSlurmJSON reads the output of `scontrol show node --json` (an object
// with a "nodes" array) or `sinfo --json` (an object with a "sinfo" array),
// in the data_parser shapes of Slurm 23.02 and later; older string-valued
// fields (features "a,b", state "idle") are accepted too. Nodes come out in
// the order Slurm lists them, which is its node table order.
func ParseSlurmJSON(name string, data []byte) ([]index.Node, []Warning, error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return nil, nil, &Error{File: name, Msg: "invalid JSON", Err: err}
	}
	if errs := v.GetArray("errors"); len(errs) > 0 {
		return nil, nil, &Error{File: name, Msg: fmt.Sprintf("slurm reported an error: %s", errs[0].String())}
	}
	if v.Exists("sinfo") {
		return parseSinfo(name, v.Get("sinfo"))
	}
	if v.Exists("nodes") {
		return parseScontrolNodes(name, v.Get("nodes"))
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

func parseScontrolNodes(name string, arr *fastjson.Value) ([]index.Node, []Warning, error) {
	items, err := arr.Array()
	if err != nil {
		return nil, nil, &Error{File: name, Msg: `"nodes" must be an array`}
	}
	out := make([]index.Node, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		n, err := slurmNode(it)
		if err != nil {
			return nil, nil, &Error{File: name, Msg: fmt.Sprintf("nodes[%d]", i), Err: err}
		}
		if seen[n.Name] {
			return nil, nil, &Error{File: name, Msg: fmt.Sprintf("nodes[%d]: duplicate node %q", i, n.Name)}
		}
		seen[n.Name] = true
		n.Rank = uint32(len(out))
		out = append(out, n)
	}
	return out, extraWarnings(name, out), nil
}

// extraWarnings warns about nodes whose extra data is not valid JSON or nests
// past json-c's depth limit (Slurm logs "Failed to decode extra"): like
// slurmctld, sift keeps such a node without extra data, so it matches no
// constrained job.
func extraWarnings(file string, nodes []index.Node) []Warning {
	var ws []Warning
	for i := range nodes {
		if len(nodes[i].Extra) > 0 && !ast.ExtraUsable(nodes[i].Extra) {
			ws = append(ws, Warning{File: file, Line: 1, Msg: fmt.Sprintf("node %s: extra is not valid JSON or nests a value %d arrays and objects deep (json-c's limit); the node matches no extra constraint", nodes[i].Name, ast.MaxExtraDepth)})
		}
	}
	return ws
}

func slurmNode(v *fastjson.Value) (index.Node, error) {
	var n index.Node
	n.Name = string(v.GetStringBytes("name"))
	if n.Name == "" {
		return n, errors.New(`missing "name"`)
	}
	n.Features = stringList(v.Get("features"))
	if act := v.Get("active_features"); act != nil {
		// Scheduling uses the active features (node_features plugins may
		// list more available than active ones).
		n.Features = stringList(act)
	}
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
		n.Extra = append([]byte(nil), x...)
	}
	return n, nil
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

func parseSinfo(name string, arr *fastjson.Value) ([]index.Node, []Warning, error) {
	items, err := arr.Array()
	if err != nil {
		return nil, nil, &Error{File: name, Msg: `"sinfo" must be an array`}
	}
	var out []index.Node
	pos := map[string]int{}
	for i, it := range items {
		names, err := sinfoNames(it)
		if err != nil {
			return nil, nil, &Error{File: name, Msg: fmt.Sprintf("sinfo[%d]", i), Err: err}
		}
		part := string(it.GetStringBytes("partition", "name"))
		for _, host := range names {
			if j, ok := pos[host]; ok {
				if part != "" && !contains(out[j].Partitions, part) {
					out[j].Partitions = append(out[j].Partitions, part)
				}
				continue
			}
			n := index.Node{
				Name:           host,
				Rank:           uint32(len(out)),
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
			pos[host] = len(out)
			out = append(out, n)
		}
	}
	return out, extraWarnings(name, out), nil
}

func sinfoNames(it *fastjson.Value) ([]string, error) {
	var names []string
	for _, e := range it.GetArray("nodes", "nodes") {
		hl, err := hostlist.Parse(hostlist.Slurm, string(e.GetStringBytes()))
		if err != nil {
			return nil, err
		}
		x, err := hl.Expand(maxConfHosts)
		if err != nil {
			return nil, err
		}
		names = append(names, x...)
	}
	return names, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
