package inventory

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/valyala/fastjson"

	"github.com/nodesift/sift/index"
)

// WriteNodeFile writes nodes as a sift node file: {"nodes":[...]} with one
// node a line, fields in a fixed order and zero values left out, so reading
// the output and writing it again gives the same bytes. Extra data that is a
// JSON object is written as that object, byte for byte; any other extra text
// is written as a JSON string holding it.
func WriteNodeFile(w io.Writer, nodes []index.Node) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"nodes\":[")
	var b []byte
	for i := range nodes {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n")
		b = appendNode(b[:0], &nodes[i], i)
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

func appendNode(b []byte, n *index.Node, pos int) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, n.Name)
	if n.Rank != uint32(pos) {
		b = appendUint(b, "rank", uint64(n.Rank))
	}
	if n.Extra != nil {
		b = append(b, `,"extra":`...)
		if isJSONObject(n.Extra) {
			b = append(b, n.Extra...)
		} else {
			b = appendString(b, string(n.Extra))
		}
	}
	if len(n.Features) > 0 {
		b = appendList(b, "features", n.Features)
	}
	b = appendUint(b, "cpus", uint64(n.CPUs))
	b = appendUint(b, "boards", uint64(n.Boards))
	b = appendUint(b, "sockets", uint64(n.Sockets))
	b = appendUint(b, "cores_per_socket", uint64(n.CoresPerSocket))
	b = appendUint(b, "threads_per_core", uint64(n.ThreadsPerCore))
	b = appendUint(b, "memory_mb", n.MemoryMB)
	if len(n.Gres) > 0 {
		gres := make([]string, len(n.Gres))
		for i, g := range n.Gres {
			s := g.Name
			if g.Type != "" {
				s += ":" + g.Type
			}
			gres[i] = s + ":" + strconv.FormatUint(g.Count, 10)
		}
		b = appendList(b, "gres", gres)
	}
	b = appendUint(b, "weight", uint64(n.Weight))
	if n.State != "" {
		b = append(b, `,"state":`...)
		b = appendString(b, n.State)
	}
	if len(n.Partitions) > 0 {
		b = appendList(b, "partitions", n.Partitions)
	}
	return append(b, '}')
}

func appendUint(b []byte, key string, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendUint(b, v, 10)
}

func appendList(b []byte, key string, xs []string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, x)
	}
	return append(b, ']')
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func isJSONObject(raw []byte) bool {
	var p fastjson.Parser
	v, err := p.ParseBytes(raw)
	return err == nil && v.Type() == fastjson.TypeObject
}
