package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodesift/sift/index"
)

// streamAgrees checks the streaming reader against the general one on
// data: when it accepts, the general reader must accept with no warning and
// make the same nodes. It reports whether the streaming reader accepted.
func streamAgrees(t *testing.T, data []byte, lim Limits) bool {
	t.Helper()
	var got []index.Node
	accepted := 0
	// Blocks of a few bytes (every line a block of its own, lines longer
	// than a block) and the usual size; with the size hint (nodes parsed
	// in place, as far as the first block's lines project) and without.
	runs := []struct {
		size int
		hint bool
	}{{8, false}, {8, true}, {64, true}, {1 << 20, false}, {1 << 20, true}}
	for _, run := range runs {
		saved := streamBlock
		streamBlock = run.size
		hint := int64(0)
		if run.hint {
			hint = int64(len(data))
		}
		nodes, err := streamNodeFile(bytes.NewReader(data), hint, lim)
		streamBlock = saved
		size := run.size
		if err != nil && !errors.Is(err, errDecline) {
			t.Fatalf("streaming reader, %d-byte blocks: %v", size, err)
		}
		if err == nil {
			accepted++
			if got != nil && !reflect.DeepEqual(got, nodes) {
				t.Fatalf("%d-byte blocks give other nodes (-before +now):\n%s", size, cmp.Diff(got, nodes))
			}
			got = nodes
		}
	}
	if accepted == 0 {
		return false
	}
	if accepted != len(runs) {
		t.Fatalf("the streaming reader accepts the file with some block sizes only")
	}
	want, warnings, err := parseNodeFile("f", data, lim)
	if err != nil {
		t.Fatalf("the streaming reader accepts what the general one refuses: %v", err)
	}
	if len(warnings) != 0 {
		t.Fatalf("the streaming reader accepts what the general one warns about: %v", warnings)
	}
	// DeepEqual first: cmp.Diff takes seconds over thousands of nodes.
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("nodes differ (-general +streaming):\n%s", cmp.Diff(want, got))
	}
	return true
}

var streamCases = []struct {
	name   string
	text   string
	stream bool // the streaming reader takes it
}{
	{"document", "{\"nodes\":[\n" + `{"name":"n1","extra":{"a":1.5,"b":true,"s":"x","n":null,"l":[1,[2]],"o":{}},"features":["gpu","ib"],"cpus":64,"boards":1,"sockets":2,"cores_per_socket":32,"threads_per_core":2,"memory_mb":512000,"gres":["gpu:a100:4",{"name":"nvme"}],"weight":5,"state":"DRAINED","partitions":["p"]},` + "\n" + `{"name":"n2","features":["gpu","ib"],"extra":null}` + "\n]}\n", true},
	{"document with spaces and CRLF", "{ \"nodes\" : [ \r\n  {\"name\": \"a1\", \"rank\": 7} , \r\n  {\"name\":\"a2\",\"rank\":3}\r\n ] } \r\n", true},
	{"JSON lines", `{"name":"n1","extra":{"a":1}}` + "\n\n" + `{"name":"n2","extra":{"a":2}}` + "\n", true},
	{"JSON lines without a final newline", `{"name":"n1"}` + "\n" + `{"name":"n2"}`, true},
	{"one node", `{"name":"n1","features":[]}`, true},
	{"lines growing shorter", `{"name":"long","extra":{"text":"` + strings.Repeat("x", 200) + `"}}` + "\n" + shortLines(40), true},
	{"blank lines between", "\n\n" + `{"name":"n1","rank":5}` + "\n\n\n" + `{"name":"n2"}` + "\n \n" + `{"name":"n3","rank":0}` + "\n" + `{"name":"n4"}` + "\n\n", true},
	{"same gres text shared", `{"name":"g1","gres":["gpu:2"]}` + "\n" + `{"name":"g2","gres":["gpu:2"]}`, true},
	{"trailing comma", "{\"nodes\":[\n{\"name\":\"n1\"},\n]}\n", false},
	{"missing comma", "{\"nodes\":[\n{\"name\":\"n1\"}\n{\"name\":\"n2\"}\n]}\n", false},
	{"document on one line", `{"nodes":[{"name":"n1"}]}`, false},
	{"node over two lines", "{\"name\":\"n1\",\n\"cpus\":4}\n", false},
	{"junk after the document", "{\"nodes\":[\n{\"name\":\"n1\"}\n]}\nx\n", false},
	{"unclosed document", "{\"nodes\":[\n{\"name\":\"n1\"}\n", false},
	{"escaped name", `{"name":"n\u0031"}`, false},
	{"escape in extra", `{"name":"n1","extra":{"a":"\u00e9"}}`, false},
	{"UTF-8 in extra", `{"name":"n1","extra":{"a":"é"}}`, false},
	{"extra as a string", `{"name":"n1","extra":"{\"a\":1}"}`, false},
	{"deep extra", `{"name":"n1","extra":{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}`, false},
	{"invalid extra", `{"name":"n1","extra":{"a":01}}`, false},
	{"duplicate name", `{"name":"n1"}` + "\n" + `{"name":"n1"}`, false},
	{"duplicate rank", `{"name":"n1","rank":1}` + "\n" + `{"name":"n2","rank":1}`, false},
	{"duplicate field", `{"name":"n1","cpus":1,"cpus":2}`, false},
	{"unknown field", `{"name":"n1","hostname":"x"}`, false},
	{"missing name", `{"cpus":1}`, false},
	{"empty name", `{"name":""}`, false},
	{"name with a comma", `{"name":"a,b"}`, false},
	{"negative cpus", `{"name":"n1","cpus":-1}`, false},
	{"fractional cpus", `{"name":"n1","cpus":1.5}`, false},
	{"cpus out of range", `{"name":"n1","cpus":4294967296}`, false},
	{"unknown state", `{"name":"n1","state":"sleepy"}`, false},
	{"empty feature", `{"name":"n1","features":[""]}`, false},
	{"bad gres", `{"name":"n1","gres":["gpu::"]}`, false},
	{"form feed line", `{"name":"n1"}` + "\n\f\n", false},
	{"Flux R", `{"version":1,"execution":{"R_lite":[]}}`, false},
	{"slurm.conf", "NodeName=n1 CPUs=4\n", false},
	{"blank", "\n \n", false},
}

// shortLines is n nodes a short line each.
func shortLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"name\":\"m%d\"}\n", i)
	}
	return b.String()
}

func TestStreamingReaderAgreesWithTheGeneralOne(t *testing.T) {
	for _, tt := range streamCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := streamAgrees(t, []byte(tt.text), DefaultLimits()); got != tt.stream {
				t.Errorf("streaming reader took it: %t, want %t", got, tt.stream)
			}
		})
	}
}

// TestStreamingReaderTakesConvertedFiles checks the form sift inventory
// convert writes, and the same nodes as JSON Lines, across the node
// slice's growth and the blocks.
func TestStreamingReaderTakesConvertedFiles(t *testing.T) {
	var doc bytes.Buffer
	if err := WriteNodeFile(&doc, Synthetic(5000, 1)); err != nil {
		t.Fatal(err)
	}
	lines := bytes.ReplaceAll(doc.Bytes(), []byte("},\n"), []byte("}\n"))
	lines = bytes.TrimPrefix(lines, []byte("{\"nodes\":[\n"))
	lines = bytes.TrimSuffix(bytes.TrimSpace(lines), []byte("]}"))
	for name, data := range map[string][]byte{"document": doc.Bytes(), "JSON lines": lines} {
		t.Run(name, func(t *testing.T) {
			if !streamAgrees(t, data, DefaultLimits()) {
				t.Fatal("the streaming reader declined a converted file")
			}
		})
	}
}

func TestStreamingReaderDeclinesOverTheLimits(t *testing.T) {
	data := []byte(`{"name":"n1","features":["a","b","c"]}` + "\n" + `{"name":"n2"}`)
	for _, lim := range []Limits{{MaxNodes: 1}, {MaxFeatures: 2}} {
		if streamAgrees(t, data, lim) {
			t.Errorf("limits %+v: the streaming reader took the file", lim)
		}
	}
}

// FuzzStreamingReader is the differential test of the streaming reader:
// whatever it accepts, the general reader accepts the same way.
func FuzzStreamingReader(f *testing.F) {
	for _, tt := range streamCases {
		f.Add([]byte(tt.text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		streamAgrees(t, data, DefaultLimits())
	})
}

func TestOpensAsNodeLinesReadsTheFirstLine(t *testing.T) {
	tests := []struct {
		name, text string
		want       bool
	}{
		{"document", "{\"nodes\":[\n{\"name\":\"n1\"}\n]}\n", true},
		{"JSON lines after blank lines", "\n \n{\"name\":\"n1\"}\n", true},
		{"pretty-printed", "{\n  \"nodes\": [\n", false},
		{"slurm.conf", "NodeName=n1 CPUs=4\n", false},
		{"empty", "", false},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := OpensAsNodeLines(path); got != tt.want {
				t.Errorf("OpensAsNodeLines = %t, want %t", got, tt.want)
			}
		})
	}
	if OpensAsNodeLines(filepath.Join(dir, "missing")) {
		t.Error("a missing file opens as node lines")
	}
}

func TestUniqueNamesWithAndWithoutOrder(t *testing.T) {
	tests := []struct {
		names []string
		want  bool
	}{
		{[]string{"n1", "n2", "n10", "n11"}, true},
		{[]string{"n01", "n02", "n03"}, true},
		{[]string{"n1", "n2", "n2", "n3"}, false},
		{[]string{"n2", "n1", "n10"}, true},
		{[]string{"n2", "n10", "n1", "n10"}, false},
		{[]string{"b", "a", "b"}, false},
		{[]string{"a"}, true},
	}
	for _, tt := range tests {
		nodes := make([]index.Node, len(tt.names))
		for i, name := range tt.names {
			nodes[i].Name = name
		}
		if got := uniqueNames(nodes); got != tt.want {
			t.Errorf("uniqueNames(%q) = %t, want %t", tt.names, got, tt.want)
		}
	}
}
