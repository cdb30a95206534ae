package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
)

// format is one inventory format Load understands.
type format struct {
	// name is the format's --nodes-format value.
	name string
	// detect reports whether data is in this format, from its content only;
	// top holds the members of data's top-level JSON object, or is nil when
	// data is not one.
	detect func(data []byte, top []member) bool
	parse  func(file string, data []byte, lim Limits) (*Cluster, []Warning, error)
}

// formats is tried in order; the first format whose detect accepts the data
// reads it. More specific formats go first: the sift node file accepts any
// JSON object, so it stays last.
var formats = []format{
	{name: "flux-r", detect: isFluxR, parse: nodesOnly(parseFluxRFile)},
	{name: "slurm-json", detect: isSlurmJSON, parse: nodesOnly(parseSlurmJSON)},
	{name: "slurm-conf", detect: isSlurmConf, parse: parseSlurmConfFile},
	{name: "sift-json", detect: isNodeFile, parse: nodesOnly(parseNodeFile)},
}

// FormatNames lists the inventory formats, as --nodes-format names them.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	sort.Strings(names)
	return names
}

// Load reads the node inventory at path, detecting its format by content.
func Load(path string) ([]index.Node, []Warning, error) {
	c, w, err := LoadCluster(path, "")
	if err != nil {
		return nil, w, err
	}
	return c.Nodes, w, nil
}

// LoadCluster reads the inventory at path with its partitions, within
// DefaultLimits. An empty formatName detects the format by content.
func LoadCluster(path, formatName string) (*Cluster, []Warning, error) {
	return LoadClusterWithin(path, formatName, DefaultLimits())
}

// LoadClusterWithin is LoadCluster within lim: an inventory that would
// exceed it fails with an *Error matching ErrLimit, before the nodes are made.
func LoadClusterWithin(path, formatName string, lim Limits) (*Cluster, []Warning, error) {
	if formatName == "" || formatName == "sift-json" {
		// The common sift node file streams; anything the streaming reader
		// declines is read whole below, as every other format is.
		if nodes, ok := streamFile(path, lim); ok {
			return &Cluster{Nodes: nodes}, nil, nil
		}
	}
	if formatName == "" || formatName == "slurm-json" {
		// Slurm's JSON output streams too.
		if nodes, ok := streamSlurmFile(path, formatName == "", lim.orDefault()); ok {
			return &Cluster{Nodes: nodes}, extraWarnings(path, nodes), nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, &Error{File: path, Msg: "cannot read node file", Err: err}
	}
	return ParseClusterWithin(path, data, formatName, lim)
}

// Parse reads an inventory held in memory, detecting its format by content;
// file names it in errors and warnings.
func Parse(file string, data []byte) ([]index.Node, []Warning, error) {
	c, w, err := ParseCluster(file, data, "")
	if err != nil {
		return nil, w, err
	}
	return c.Nodes, w, nil
}

// ParseCluster reads an inventory held in memory in the named format, or
// detects the format by content when formatName is empty, within
// DefaultLimits.
func ParseCluster(file string, data []byte, formatName string) (*Cluster, []Warning, error) {
	return ParseClusterWithin(file, data, formatName, DefaultLimits())
}

// ParseClusterWithin is ParseCluster within lim.
func ParseClusterWithin(file string, data []byte, formatName string, lim Limits) (*Cluster, []Warning, error) {
	lim = lim.orDefault()
	if formatName != "" {
		for _, f := range formats {
			if f.name == formatName {
				return f.parse(file, data, lim)
			}
		}
		return nil, nil, &Error{File: file, Msg: fmt.Sprintf("unknown inventory format %q, expected one of %s", position.Clip(formatName), strings.Join(FormatNames(), ", "))}
	}
	top, _ := topMembers(data)
	for _, f := range formats {
		if f.detect(data, top) {
			return f.parse(file, data, lim)
		}
	}
	if (&scanner{b: data}).ws(0) == len(data) {
		return nil, nil, &Error{File: file, Msg: "empty node file"}
	}
	return nil, nil, &Error{File: file, Msg: "unrecognized node file format, expected a sift node file (JSON), slurm.conf, scontrol/sinfo --json output or a Flux R document"}
}

// nodesOnly adapts a reader of nodes alone: such formats configure no
// partitions, only name them on nodes (see PartitionsOf).
func nodesOnly(parse func(file string, data []byte, lim Limits) ([]index.Node, []Warning, error)) func(string, []byte, Limits) (*Cluster, []Warning, error) {
	return func(file string, data []byte, lim Limits) (*Cluster, []Warning, error) {
		nodes, w, err := parse(file, data, lim)
		if err != nil {
			return nil, w, err
		}
		return &Cluster{Nodes: nodes}, w, nil
	}
}

// PartitionsOf returns the partitions the nodes name, in order of first
// mention, each with its nodes in node order and Slurm's default settings.
// It is for inventories that configure no partitions of their own.
func PartitionsOf(nodes []index.Node) []Partition {
	var parts []Partition
	pos := map[string]int{}
	for i := range nodes {
		for _, p := range nodes[i].Partitions {
			j, ok := pos[p]
			if !ok {
				j = len(parts)
				pos[p] = j
				parts = append(parts, Partition{Name: p, MaxTime: -1, DefaultTime: -1, PriorityTier: 1, OverSubscribe: "NO", State: "UP"})
			}
			parts[j].Nodes = append(parts[j].Nodes, nodes[i].Name)
		}
	}
	return parts
}

// topMembers returns the members of the JSON object data holds, or false
// when data is not exactly one valid JSON object. Format detection reads
// keys only: one scan, without parsing a large document into values.
func topMembers(data []byte) ([]member, bool) {
	sc := scanner{b: data}
	i := sc.ws(0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	ms := []member{}
	end, err := sc.object(i, 1, &ms)
	if err != nil || sc.ws(end) != len(data) {
		return nil, false
	}
	return ms, true
}

// lastMember returns the member of ms named key (the last, as JSON parsers
// keep it); keys are compared as written, escapes and all.
func lastMember(data []byte, ms []member, key string) (member, bool) {
	for k := len(ms) - 1; k >= 0; k-- {
		m := ms[k]
		if m.keyEnd-m.keyStart == len(key)+2 && string(data[m.keyStart+1:m.keyEnd-1]) == key {
			return m, true
		}
	}
	return member{}, false
}

func hasKey(data []byte, ms []member, key string) bool {
	_, ok := lastMember(data, ms, key)
	return ok
}

// isSlurmConf reports whether data looks like slurm.conf: not JSON, and a
// line that starts with a NodeName= or PartitionName= key (in any case).
func isSlurmConf(data []byte, _ []member) bool {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return false
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		l := strings.ToLower(strings.TrimLeft(string(line), " \t"))
		for _, key := range []string{"nodename", "partitionname"} {
			if rest, ok := strings.CutPrefix(l, key); ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
				return true
			}
		}
	}
	return false
}

func parseSlurmConfFile(file string, data []byte, lim Limits) (*Cluster, []Warning, error) {
	return parseSlurmConf(file, data, os.ReadFile, lim)
}

// streamFile reads the sift node file at path with the streaming reader;
// ok is false when it declines or cannot read the file.
func streamFile(path string, lim Limits) ([]index.Node, bool) {
	f, size, ok := openRegular(path)
	if !ok {
		return nil, false
	}
	defer f.Close()
	nodes, err := streamNodeFile(f, size, lim)
	return nodes, err == nil
}

// openRegular opens the file at path if it is a regular file and returns
// its size. Only regular files stream: what a streaming reader has read of
// a pipe could not be read again by the general reader after it declined.
func openRegular(path string) (*os.File, int64, bool) {
	// Stat before opening: opening a named pipe would take its writer.
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil, 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, st.Size(), true
}
