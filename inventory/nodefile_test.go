package inventory

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodesift/sift/index"
)

func TestParseNodeFileReadsBothLayouts(t *testing.T) {
	want := []index.Node{
		{Name: "n1", Rank: 0, Extra: []byte(`{ "a": 1.23, "b": true }`), Features: []string{"gpu", "ib"}},
		{Name: "n2", Rank: 1, Extra: []byte(`{"zed":23}`), CPUs: 64, Sockets: 2, CoresPerSocket: 32,
			ThreadsPerCore: 1, Boards: 1, MemoryMB: 512000, Weight: 7, State: "drained",
			Partitions: []string{"gpu", "debug"},
			Gres:       []index.Gres{{Name: "gpu", Type: "a100", Count: 4}, {Name: "nvme", Count: 1}, {Name: "mps", Count: 100}}},
		{Name: "n3", Rank: 9},
	}
	n1 := `{"name":"n1","extra":{ "a": 1.23, "b": true },"features":["gpu","ib"]}`
	n2 := `{"name":"n2","extra":"{\"zed\":23}","cpus":64,"sockets":2,"cores_per_socket":32,"threads_per_core":1,` +
		`"boards":1,"memory_mb":512000,"weight":7,"state":"DRAINED","partitions":["gpu","debug"],` +
		`"gres":["gpu:a100:4",{"name":"nvme"},{"name":"mps","count":100}]}`
	n3 := `{"name":"n3","rank":9,"extra":null}`
	tests := []struct {
		name string
		text string
	}{
		{"document", "{\"nodes\": [\n  " + n1 + ",\n  " + n2 + ",\n  " + n3 + "\n]}\n"},
		{"document on one line", `{"nodes":[` + n1 + "," + n2 + "," + n3 + `]}`},
		{"JSON lines", n1 + "\n" + n2 + "\n\n" + n3 + "\n"},
		{"JSON lines with CRLF and no final newline", n1 + "\r\n" + n2 + "\r\n" + n3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := ParseNodeFile("f.json", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings: %v", warnings)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseNodeFileAcceptsEmptyNodeList(t *testing.T) {
	got, _, err := ParseNodeFile("f.json", []byte(`{"nodes":[]}`))
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want no nodes and no error", got, err)
	}
}

func TestParseNodeFileWarnsOnInvalidExtraString(t *testing.T) {
	text := "{\"name\":\"ok\",\"extra\":\"{}\"}\n{\"name\":\"bad\",\"extra\":\"{'a': 1}\"}\n"
	nodes, warnings, err := ParseNodeFile("f.jsonl", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{{File: "f.jsonl", Line: 2, Node: "bad",
		Msg: "extra is not valid JSON, so the node has no extra data and matches no constrained job"}}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if string(nodes[1].Extra) != "{'a': 1}" {
		t.Errorf("extra kept as %q, want the raw text", nodes[1].Extra)
	}
	if got := warnings[0].String(); got != `f.jsonl:2: node "bad": extra is not valid JSON, so the node has no extra data and matches no constrained job` {
		t.Errorf("String() = %q", got)
	}
}

func TestParseNodeFileRejectsInvalidFiles(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown field", "{\"nodes\":[\n{\"name\":\"a\",\"colour\":1}]}", `f:2:13: unknown field "colour"`},
		{"unknown field in JSON lines", "{\"name\":\"a\"}\n{\"name\":\"b\",\"x\":1}", `f:2:13: unknown field "x"`},
		{"missing name", "{\"nodes\":[{\"cpus\":1}]}", `f:1:11: missing required field "name"`},
		{"empty name", `{"name":""}`, `f:1:9: field "name": must not be empty`},
		{"name with comma", `{"name":"a,b"}`, `f:1:9: field "name": must not contain ',' (names are written into hostlists)`},
		{"name not a string", `{"name":1}`, `f:1:9: field "name": expected a string`},
		{"duplicate name", "{\"name\":\"a\"}\n{\"name\":\"a\"}", `f:2:9: node "a": field "name": duplicate node name (first on line 1)`},
		{"duplicate field", `{"name":"a","cpus":1,"cpus":2}`, `f:1:22: duplicate field "cpus"`},
		{"negative", `{"name":"a","cpus":-1}`, `f:1:20: node "a": field "cpus": must not be negative, got -1`},
		{"fraction", `{"name":"a","sockets":1.5}`, `f:1:23: node "a": field "sockets": expected an integer, got 1.5`},
		{"exponent", `{"name":"a","boards":1e3}`, `f:1:22: node "a": field "boards": expected an integer, got 1e3`},
		{"string number", `{"name":"a","cpus":"4"}`, `f:1:20: node "a": field "cpus": expected a non-negative integer`},
		{"rank too large", `{"name":"a","rank":4294967296}`, `f:1:20: node "a": field "rank": 4294967296 is out of range, expected at most 4294967295`},
		{"cpus too large", `{"name":"a","cpus":2147483648}`, `f:1:20: node "a": field "cpus": 2147483648 is out of range, expected at most 2147483647`},
		{"duplicate rank", "{\"name\":\"a\",\"rank\":1}\n{\"name\":\"b\"}", `f:2: node "b": field "rank": rank 1 is already node "a"'s`},
		{"unknown state", `{"name":"a","state":"broken"}`, `f:1:21: node "a": field "state": unknown state "broken", expected one of idle, mixed, allocated, down, drain, drained, draining`},
		{"features not strings", `{"name":"a","features":["x",1]}`, `f:1:24: node "a": field "features": element 1: expected a string`},
		{"partitions not array", `{"name":"a","partitions":"p"}`, `f:1:26: node "a": field "partitions": expected an array of strings`},
		{"extra number", `{"name":"a","extra":5}`, `f:1:21: node "a": field "extra": expected a JSON object or a string holding JSON`},
		{"bad gres string", `{"name":"a","gres":["gpu:a:b"]}`, `f:1:20: node "a": field "gres": element 0: invalid gres "gpu:a:b", expected "name[:type][:count]"`},
		{"gres object without name", `{"name":"a","gres":[{"count":2}]}`, `f:1:20: node "a": field "gres": element 0: missing "name"`},
		{"gres object unknown key", `{"name":"a","gres":[{"name":"g","n":2}]}`, `f:1:20: node "a": field "gres": element 0: unknown field "n", expected name, type or count`},
		{"gres negative count", `{"name":"a","gres":[{"name":"g","count":-2}]}`, `f:1:20: node "a": field "gres": element 0: "count": expected a non-negative integer, got -2`},
		{"syntax error", "{\"nodes\":[\n{\"name\":\"a\",}]}", `f:2:13: invalid JSON: unexpected '}', expected a member name in double quotes`},
		{"trailing garbage", `{"nodes":[]} x`, `f:1:14: unexpected 'x' after the JSON document, expected the end of the file`},
		{"unknown top-level field", `{"nodes":[],"version":1}`, `f:1:13: unknown field "version", expected "nodes"`},
		{"nodes not array", `{"nodes":{}}`, `f:1:10: field "nodes": expected an array of node objects`},
		{"node not object", `{"nodes":[1]}`, `f:1:11: expected a node object`},
		{"JSON lines garbage line", "{\"name\":\"a\"}\n[1]", `f:2:1: expected a node object on each line`},
		{"JSON lines trailing text", "{\"name\":\"a\"}\n{\"name\":\"b\"} x", `f:2:14: unexpected 'x' after the node object, expected the end of the line`},
		{"unterminated", "{\"nodes\":[\n{\"name\":\"a", `f:2:9: invalid JSON: unterminated string, expected a closing '"'`},
		{"control character", "{\"name\":\"a\tb\"}", `f:1:11: invalid JSON: control character byte 0x09 in string, expected it escaped`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseNodeFile("f", []byte(tt.text))
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *inventory.Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestLoadDetectsAndReports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", `{"name":"x","extra":{"a":1}}`)
	nodes, _, err := Load(good)
	if err != nil || len(nodes) != 1 || nodes[0].Name != "x" {
		t.Errorf("Load(good) = %v, %v", nodes, err)
	}
	tests := []struct{ name, path, want string }{
		{"missing file", filepath.Join(dir, "nope.json"), filepath.Join(dir, "nope.json") + ": cannot read node file: no such file or directory"},
		{"empty file", write("empty.json", " \n"), filepath.Join(dir, "empty.json") + ": empty node file"},
		{"unknown format", write("conf", "Frobnicate=a"), filepath.Join(dir, "conf") + ": unrecognized node file format, expected a sift node file (JSON), slurm.conf, scontrol/sinfo --json output or a Flux R document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load(tt.path)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Load error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestLoadReadsTheExampleNodeFile(t *testing.T) {
	nodes, warnings, err := Load("testdata/example.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 4 || len(warnings) != 1 {
		t.Errorf("got %d nodes and warnings %v; want 4 nodes and 1 warning", len(nodes), warnings)
	}
}

// slurmctld's json-c refuses a value inside 32 arrays and objects and logs
// "Failed to decode extra", as for invalid JSON; sift warns for both.
func TestNodeExtraNestedPastJSONCLimitWarns(t *testing.T) {
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + "1" + strings.Repeat("]", n-1) + "}" }
	deepStr, _ := json.Marshal(deep(32))
	tests := []struct {
		name, text string
		warn       bool
	}{
		{"object 31 deep", `{"name":"n","extra":` + deep(31) + "}\n", false},
		{"object 32 deep", `{"name":"n","extra":` + deep(32) + "}\n", true},
		{"string 32 deep", `{"name":"n","extra":` + string(deepStr) + "}\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warnings, err := ParseNodeFile("f.jsonl", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if tt.warn {
				want = 1
			}
			if len(warnings) != want || (want == 1 && !strings.Contains(warnings[0].Msg, "32 arrays and objects deep")) {
				t.Fatalf("warnings %v, want %d naming the depth limit", warnings, want)
			}
		})
	}
	data := `[{"name":"n","extra":` + string(deepStr) + `}]`
	if _, warnings, err := ParseSlurmJSON("s.json", []byte(`{"nodes":`+data+`}`)); err != nil || len(warnings) != 1 {
		t.Fatalf("scontrol JSON: warnings %v, err %v; want one warning", warnings, err)
	}
}

func TestFieldByNameKnowsEveryField(t *testing.T) {
	for f, name := range fieldNames {
		if got, ok := fieldByName([]byte(name)); !ok || got != field(f) {
			t.Errorf("fieldByName(%q) = %d, %t; want %d", name, got, ok, f)
		}
	}
	for _, name := range []string{"", "Name", "names", "nam", "extras"} {
		if _, ok := fieldByName([]byte(name)); ok {
			t.Errorf("fieldByName(%q) accepted", name)
		}
	}
}
