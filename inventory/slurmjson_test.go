package inventory

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodesift/sift/index"
)

func TestParseSlurmJSONReadsScontrolNodes(t *testing.T) {
	data, err := os.ReadFile("testdata/scontrol-nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	if !isSlurmJSON(withTop(data)) {
		t.Fatal("scontrol output not detected")
	}
	nodes, warns, err := ParseSlurmJSON("scontrol-nodes.json", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []index.Node{
		{Name: "cn001", Rank: 0, Extra: []byte(`{"rack": 4, "ib": true}`), Features: []string{"cascade", "ib"},
			CPUs: 36, Boards: 1, Sockets: 2, CoresPerSocket: 18, ThreadsPerCore: 2, MemoryMB: 257400, Weight: 1,
			State: "idle", Partitions: []string{"standard", "debug"}},
		{Name: "gpu01", Rank: 1, Features: []string{"cascade", "gpu"},
			CPUs: 40, Boards: 1, Sockets: 2, CoresPerSocket: 20, ThreadsPerCore: 2, MemoryMB: 385180, Weight: 10,
			Gres: []index.Gres{{Name: "gpu", Type: "V100", Count: 4}}, State: "drain", Partitions: []string{"gpu"}},
		{Name: "old1", Rank: 2, Extra: []byte("not json"), Features: []string{"old", "style"},
			CPUs: 4, Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 1, MemoryMB: 1000, Weight: 1,
			State: "down", Partitions: []string{"debug"}},
	}
	if diff := cmp.Diff(want, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if len(warns) != 1 {
		t.Errorf("warnings = %v, want one for old1's invalid extra", warns)
	}
}

func TestParseSlurmJSONReadsSinfoMergingPartitions(t *testing.T) {
	data, err := os.ReadFile("testdata/sinfo.json")
	if err != nil {
		t.Fatal(err)
	}
	if !isSlurmJSON(withTop(data)) {
		t.Fatal("sinfo output not detected")
	}
	nodes, _, err := ParseSlurmJSON("sinfo.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"cn001", "cn002", "cn003", "gpu01", "gpu02"}, names); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"standard", "debug"}, nodes[0].Partitions); diff != "" {
		t.Errorf("cn001 partitions (-want +got):\n%s", diff)
	}
	g := nodes[3]
	if g.State != "down" || g.CPUs != 40 || g.Weight != 10 || len(g.Gres) != 1 || g.Gres[0].Count != 4 || g.Gres[0].Type != "a100" {
		t.Errorf("gpu01 = %+v", g)
	}
}

func TestParseSlurmJSONRejects(t *testing.T) {
	tests := []struct {
		name, data string
	}{
		{"not JSON", `{"nodes": [`},
		{"neither shape", `{"jobs": []}`},
		{"nodes not array", `{"nodes": {}, "meta": {}}`},
		{"node without name", `{"nodes": [{"cpus": 4}], "meta": {}}`},
		{"duplicate node", `{"nodes": [{"name": "a"}, {"name": "a"}], "meta": {}}`},
		{"slurm error", `{"nodes": [], "errors": [{"error": "Invalid authentication"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := ParseSlurmJSON("x.json", []byte(tt.data)); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestSlurmStateReducesFlags(t *testing.T) {
	tests := []struct{ in, want string }{
		{`["IDLE"]`, "idle"},
		{`["MIXED"]`, "mixed"},
		{`["ALLOCATED"]`, "allocated"},
		{`["IDLE","DRAIN"]`, "drain"},
		{`["ALLOCATED","DRAIN"]`, "drain"},
		{`["DOWN","NOT_RESPONDING"]`, "down"},
		{`["FUTURE"]`, "down"},
		{`"idle"`, "idle"},
		{`["IDLE","POWERED_DOWN"]`, "idle"},
	}
	for _, tt := range tests {
		data := `{"nodes":[{"name":"n","state":` + tt.in + `}],"meta":{}}`
		nodes, _, err := ParseSlurmJSON("x", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if nodes[0].State != tt.want {
			t.Errorf("state %s = %q, want %q", tt.in, nodes[0].State, tt.want)
		}
	}
}
