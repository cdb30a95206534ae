package convert

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodesift/sift/index"
)

func TestSlurmConfDerivesExtraFromHardware(t *testing.T) {
	conf := `# comment
NodeName=r1n[0-1] CPUs=36 RealMemory=257400 Sockets=2 CoresPerSocket=18 ThreadsPerCore=2 weight=1000
NodeName=g[1] CPUs=40 Gres=gpu:GV100GL:4 Features=cascade
PartitionName=all Nodes=ALL
PartitionName=gpu Nodes=g[1] TRESBillingWeights="GRES/gpu=1.0"
`
	nodes, err := SlurmConf("slurm.conf", []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name+" "+string(n.Extra))
	}
	want := []string{
		`g1 {"arch":"cascade","cpus":40,"edgen":false,"gpu":"GV100GL","gpus":4,"mem_gb":0.0009765625,"rack":"g1"}`,
		`r1n0 {"arch":"broadwell","cpus":36,"edgen":true,"gpu":"none","gpus":0,"mem_gb":251.3671875,"rack":"r1n0"}`,
		`r1n1 {"arch":"broadwell","cpus":36,"edgen":true,"gpu":"none","gpus":0,"mem_gb":251.3671875,"rack":"r1n1"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The committed node files must be what the converter makes of the shared data.
func TestCommittedNodeFilesAreUpToDate(t *testing.T) {
	const src = "../../../../shared/data/clusters/"
	conf, err := os.ReadFile(src + "epcc-cirrus-slurm.conf")
	if err != nil {
		t.Skip("shared data not available:", err)
	}
	cirrus, err := SlurmConf(src+"epcc-cirrus-slurm.conf", conf)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src + "grid5000-reference-nodes.tar.gz")
	if err != nil {
		t.Skip("shared data not available:", err)
	}
	defer f.Close()
	g5k, err := Grid5000(f)
	if err != nil {
		t.Fatal(err)
	}
	for file, nodes := range map[string][]index.Node{"cirrus.json": cirrus, "grid5000.json": g5k} {
		committed, err := os.ReadFile("../../testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(NodeFile(nodes)); got != string(committed) {
			t.Errorf("bench/testdata/%s is stale: run go generate ./bench", file)
		}
	}
	if len(cirrus) != 407 || len(g5k) != 939 {
		t.Errorf("cirrus %d nodes (want 407), grid5000 %d (want 939)", len(cirrus), len(g5k))
	}
	for _, n := range g5k {
		if strings.Contains(string(NodeFile([]index.Node{n})), "grid5000.fr") {
			t.Fatalf("node %s carries a real hostname", n.Name)
		}
	}
}
