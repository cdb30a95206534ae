package convert

import (
	"bytes"
	"sort"
	"strconv"
)

// Node is one node as the sift node file spells it. Extra holds a JSON object
// as text; its keys are written in sorted order so output is stable.
type Node struct {
	Name           string
	Extra          map[string]any
	Features       []string
	CPUs           int
	Boards         int
	Sockets        int
	CoresPerSocket int
	ThreadsPerCore int
	MemoryMB       uint64
	Gres           []string
	Weight         uint32
	Partitions     []string
}

// WriteNodeFile renders nodes as a sift node file: a JSON document
// {"nodes":[...]} with one node per line, so diffs of the committed files stay
// readable.
func WriteNodeFile(nodes []Node) []byte {
	var b bytes.Buffer
	b.WriteString("{\"nodes\":[\n")
	for i, n := range nodes {
		b.WriteString(`{"name":`)
		b.WriteString(strconv.Quote(n.Name))
		b.WriteString(`,"extra":`)
		writeObject(&b, n.Extra)
		writeStrings(&b, "features", n.Features)
		writeInt(&b, "cpus", uint64(n.CPUs))
		writeInt(&b, "boards", uint64(n.Boards))
		writeInt(&b, "sockets", uint64(n.Sockets))
		writeInt(&b, "cores_per_socket", uint64(n.CoresPerSocket))
		writeInt(&b, "threads_per_core", uint64(n.ThreadsPerCore))
		writeInt(&b, "memory_mb", n.MemoryMB)
		writeStrings(&b, "gres", n.Gres)
		writeInt(&b, "weight", uint64(n.Weight))
		writeStrings(&b, "partitions", n.Partitions)
		b.WriteByte('}')
		if i < len(nodes)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

func writeInt(b *bytes.Buffer, key string, v uint64) {
	if v == 0 {
		return
	}
	b.WriteString(`,"` + key + `":`)
	b.WriteString(strconv.FormatUint(v, 10))
}

func writeStrings(b *bytes.Buffer, key string, ss []string) {
	if len(ss) == 0 {
		return
	}
	b.WriteString(`,"` + key + `":[`)
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(s))
	}
	b.WriteByte(']')
}

func writeObject(b *bytes.Buffer, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		switch v := m[k].(type) {
		case string:
			b.WriteString(strconv.Quote(v))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case int:
			b.WriteString(strconv.Itoa(v))
		case float64:
			b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		default:
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
}
