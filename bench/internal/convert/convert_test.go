package convert

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpandHostlist(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"highmem01", []string{"highmem01"}},
		{"r1i7n[0-2,9]", []string{"r1i7n0", "r1i7n1", "r1i7n2", "r1i7n9"}},
		{"r2i[4-5]n[0-1]", []string{"r2i4n0", "r2i4n1", "r2i5n0", "r2i5n1"}},
		{"a[08-10],b", []string{"a08", "a09", "a10", "b"}},
	} {
		got, err := expandHostlist(tc.in)
		if err != nil {
			t.Fatalf("expandHostlist(%q): %v", tc.in, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("expandHostlist(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{"a[1-", "a[3-1]", "a[x]"} {
		if _, err := expandHostlist(bad); err == nil {
			t.Errorf("expandHostlist(%q) accepted", bad)
		}
	}
}

func TestSlurmConfReadsNodesPartitionsAndCaseInsensitiveKeys(t *testing.T) {
	conf := `# comment
NodeName=r1n[0-1] CPUs=36 RealMemory=257400 Sockets=2 CoresPerSocket=18 ThreadsPerCore=2 weight=1000
NodeName=g[1] CPUs=40 Gres=gpu:GV100GL:4 Features=cascade
PartitionName=all Nodes=ALL
PartitionName=gpu Nodes=g[1] TRESBillingWeights="GRES/gpu=1.0"
`
	nodes, err := SlurmConf([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, string(WriteNodeFile([]Node{n})))
	}
	want := []string{
		`{"nodes":[` + "\n" + `{"name":"r1n0","extra":{"arch":"broadwell","cpus":36,"edgen":true,"gpu":"none","gpus":0,"mem_gb":251.3671875,"rack":"r1n0"},"cpus":36,"sockets":2,"cores_per_socket":18,"threads_per_core":2,"memory_mb":257400,"weight":1000,"partitions":["all"]}` + "\n]}\n",
		`{"nodes":[` + "\n" + `{"name":"r1n1","extra":{"arch":"broadwell","cpus":36,"edgen":true,"gpu":"none","gpus":0,"mem_gb":251.3671875,"rack":"r1n1"},"cpus":36,"sockets":2,"cores_per_socket":18,"threads_per_core":2,"memory_mb":257400,"weight":1000,"partitions":["all"]}` + "\n]}\n",
		`{"nodes":[` + "\n" + `{"name":"g1","extra":{"arch":"cascade","cpus":40,"edgen":false,"gpu":"GV100GL","gpus":4,"mem_gb":0,"rack":"g1"},"features":["cascade"],"cpus":40,"gres":["gpu:GV100GL:4"],"partitions":["all","gpu"]}` + "\n]}\n",
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
	cirrus, err := SlurmConf(conf)
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
	for file, nodes := range map[string][]Node{"cirrus.json": cirrus, "grid5000.json": g5k} {
		committed, err := os.ReadFile("../../testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(WriteNodeFile(nodes)); got != string(committed) {
			t.Errorf("bench/testdata/%s is stale: run go generate ./bench", file)
		}
	}
	if len(cirrus) != 407 || len(g5k) != 939 {
		t.Errorf("cirrus %d nodes (want 407), grid5000 %d (want 939)", len(cirrus), len(g5k))
	}
	for _, n := range g5k {
		if strings.Contains(string(WriteNodeFile([]Node{n})), "grid5000.fr") {
			t.Fatalf("node %s carries a real hostname", n.Name)
		}
	}
}
