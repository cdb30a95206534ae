package inventory

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/idset"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

func TestParseFluxR(t *testing.T) {
	doc := `{"version":1,"execution":{"R_lite":[
		{"rank":"1-2","children":{"core":"0-3","gpu":"0"}},
		{"rank":"0","children":{"core":"0-1"}}],
		"nodelist":["n[7-8]","login"],
		"properties":{"debug":"2","batch":"0-1","+local":"1"}}}`
	got, err := ParseFluxR([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []index.Node{
		{Name: "n7", Rank: 0, CPUs: 2, Features: []string{"batch"}},
		{Name: "n8", Rank: 1, CPUs: 4, Gres: []index.Gres{{Name: "gpu", Count: 1}}, Features: []string{"batch", "+local"}},
		{Name: "login", Rank: 2, CPUs: 4, Gres: []index.Gres{{Name: "gpu", Count: 1}}, Features: []string{"debug"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseFluxR (-want +got):\n%s", d)
	}
}

func TestParseFluxRErrors(t *testing.T) {
	const lite = `"R_lite":[{"rank":"0-3","children":{"core":"0"}}]`
	tests := []struct{ name, doc, msg string }{
		{"ref §2: version must be 1", `{"version":2,"execution":{` + lite + `,"nodelist":["a[0-3]"]}}`, "invalid version=2"},
		{"jansson: version must be an integer", `{"version":"1","execution":{` + lite + `}}`, "Expected integer, got string"},
		{"jansson: execution required", `{"version":1}`, "Object item not found: execution"},
		{"jansson: R_lite required", `{"version":1,"execution":{}}`, "Object item not found: R_lite"},
		{"jansson: rank must be a string", `{"version":1,"execution":{"R_lite":[{"rank":0,"children":{}}]}}`, "Expected string, got integer"},
		{"R_lite rank idset", `{"version":1,"execution":{"R_lite":[{"rank":"3,1","children":{}}],"nodelist":["a"]}}`, "invalid idset '3,1' in R_lite rank"},
		{"ref §2: nodelist must cover every rank", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-2]"]}}`, "nodelist has 3 hosts for 4 ranks"},
		{"ref §2: nodelist too long", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-9]"]}}`, "nodelist has more hosts than the 4 ranks of R_lite"},
		{"sift needs hostnames", `{"version":1,"execution":{` + lite + `}}`, "execution.nodelist is missing"},
		{"sift needs distinct hostnames", `{"version":1,"execution":{` + lite + `,"nodelist":["a,a,b,c"]}}`, `host "a" is both rank 0 and rank 1`},
		{"ref §2: properties must be an object", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-3]"],"properties":[]}}`, "properties must be an object"},
		{"ref §2: property value not a string", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-3]"],"properties":{"x":[1, 2]}}}`, "properties value '[1,2]' not a string"},
		{"ref §2: invalid property character", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-3]"],"properties":{"a^b":"0"}}}`, `invalid character '^' in property "a^b"`},
		{"ref §2: invalid property idset", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-3]"],"properties":{"x":"1-1"}}}`, `invalid idset '1-1' specified for property "x"`},
		{"ref §2: one unknown rank", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-3]"],"properties":{"x":"3-4"}}}`, "rank 4 not found in target resource list"},
		{"ref §2: unknown ranks as a ranged idset", `{"version":1,"execution":{` + lite + `,"nodelist":["a[0-3]"],"properties":{"x":"2-9,2000000000"}}}`, "ranks 4-9,2000000000 not found in target resource list"},
		{"not JSON", `{"version":1,`, "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFluxR([]byte(tt.doc))
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Error(), tt.msg) {
				t.Fatalf("ParseFluxR error = %v, want %q", err, tt.msg)
			}
		})
	}
}

func TestParseFluxRAcceptsBangInProperties(t *testing.T) {
	// ref §2: flux-core's R decoder does not reject '!' (RFC 20 does).
	doc := `{"version":1,"execution":{"R_lite":[{"rank":"0","children":{}}],"nodelist":["a"],"properties":{"a!b":"0"}}}`
	nodes, err := ParseFluxR([]byte(doc))
	if err != nil || len(nodes) != 1 || len(nodes[0].Features) != 1 || nodes[0].Features[0] != "a!b" {
		t.Fatalf("ParseFluxR = %v, %v", nodes, err)
	}
}

func TestIsFluxR(t *testing.T) {
	tests := []struct {
		doc  string
		want bool
	}{
		{`{"version":1,"execution":{}}`, true},
		{` {"execution":{},"version":1} `, true},
		{`{"nodes":[]}`, false},
		{`{"version":1}`, false},
		{`[{"version":1,"execution":{}}]`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := isFluxR(withTop([]byte(tt.doc))); got != tt.want {
			t.Errorf("isFluxR(%s) = %v, want %v", tt.doc, got, tt.want)
		}
	}
}

// TestFlukeAcceptance reads the real flux-fluke R and answers the issue's
// acceptance query, as a ranged idset of ranks, with the reference evaluator
// and with the compiled program on the VM.
func TestFlukeAcceptance(t *testing.T) {
	data, err := os.ReadFile("../../shared/data/clusters/flux-fluke.R.json")
	if err != nil {
		t.Skip("shared data not available:", err)
	}
	if !isFluxR(withTop(data)) {
		t.Fatal("fluke R not detected as Flux R")
	}
	nodes, err := ParseFluxR(data)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 101 || nodes[0].Name != "fluke3" || nodes[100].Name != "fluke103" {
		t.Fatalf("got %d nodes, first %+v", len(nodes), nodes[0])
	}
	tests := []struct{ constraint, ranks string }{
		{`{"and":[{"hostlist":["fluke[10-20]"]},{"properties":["^debug"]}]}`, "7-17"},
		{`{"properties":["debug"]}`, "93-100"},
		{`{"or":[{"hostlist":["fluke[100-200]"]},{"ranks":["0-1"]}]}`, "0-1,97-100"},
		{`{"properties":["fluke5"]}`, "2"},
		{`{"not":[{"properties":["batch"]},{"properties":["debug"]}]}`, "0-100"},
	}
	for _, tt := range tests {
		n, err := flux.ParseRFC31([]byte(tt.constraint))
		if err != nil {
			t.Fatal(err)
		}
		var ids []idset.Range
		for _, nd := range nodes {
			f := &ast.Facts{Name: nd.Name, Rank: nd.Rank, Properties: nd.Features}
			if ast.Eval(n, f) {
				ids = appendRank(ids, nd.Rank)
			}
		}
		if got := idset.FromRanges(ids).Encode(idset.Ranged); got != tt.ranks {
			t.Errorf("%s matches ranks %q, want %q", tt.constraint, got, tt.ranks)
		}
		p, err := compiler.Compile(compiler.Flux, tt.constraint)
		if err != nil {
			t.Fatal(err)
		}
		ids = ids[:0]
		for it := vm.Run(p, snap).Iterator(); it.HasNext(); {
			nd, _ := snap.Node(it.Next())
			ids = appendRank(ids, nd.Rank)
		}
		if got := idset.FromRanges(ids).Encode(idset.Ranged); got != tt.ranks {
			t.Errorf("VM: %s matches ranks %q, want %q", tt.constraint, got, tt.ranks)
		}
	}
}

func appendRank(rs []idset.Range, id uint32) []idset.Range {
	if k := len(rs); k > 0 && rs[k-1].Hi+1 == id {
		rs[k-1].Hi = id
		return rs
	}
	return append(rs, idset.Range{Lo: id, Hi: id})
}

// FuzzParseFluxR checks that no document makes the R reader panic and that
// every accepted document yields distinct names and ascending ranks.
func FuzzParseFluxR(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		nodes, err := ParseFluxR(data)
		if err != nil {
			return
		}
		seen := make(map[string]bool)
		for i, n := range nodes {
			if seen[n.Name] || (i > 0 && nodes[i-1].Rank >= n.Rank) {
				t.Fatalf("bad nodes %+v", nodes)
			}
			seen[n.Name] = true
		}
	})
}

func TestParseFluxRFileNamesTheFile(t *testing.T) {
	_, warnings, err := parseFluxRFile("cluster.R", []byte(`{"version":3,"execution":{"R_lite":[]}}`), Limits{})
	if err == nil || warnings != nil || err.Error() != "cluster.R: invalid version=3" {
		t.Fatalf("parseFluxRFile = %v, %v", warnings, err)
	}
}

// withTop returns data with its top-level members, as format detection
// receives them.
func withTop(data []byte) ([]byte, []member) {
	top, _ := topMembers(data)
	return data, top
}
