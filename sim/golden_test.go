package sim

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/workload"
)

var update = flag.Bool("update", false, "rewrite the golden metrics")

// sharedTraces holds the real logs (../shared/data/traces in the project's
// workspace); tests that need them are skipped where it is absent.
const sharedTraces = "../../shared/data/traces"

// goldenJobs is how many jobs of each log the golden runs replay.
const goldenJobs = 100

// TestGoldenMetricsOnRealTraceSlices: the first jobs of each real log,
// replayed with FIFO and with backfill on the header's machine with whole
// nodes, give the metrics recorded in testdata/golden (regenerate with
// go test ./sim -run Golden -update). The SDSC-SP2 slice is in the
// repository (its data usage agreement allows copies that keep the
// header); the other logs carry no licence, so they are read from the
// shared directory when it is present.
func TestGoldenMetricsOnRealTraceSlices(t *testing.T) {
	for name, path := range realTraces() {
		t.Run(name, func(t *testing.T) {
			tr, nodes := openSlice(t, path, goldenJobs, workload.Options{})
			got := map[string]Summary{}
			for _, p := range []Policy{FIFO, Backfill} {
				cl, plug, err := NewCluster(nodes, WholeNode)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Run(tr, Options{Cluster: cl, Plugin: plug, Partition: HeaderPartition, Policy: p, Config: sched.DefaultConfig()})
				if err != nil {
					t.Fatal(err)
				}
				got[string(p)] = res.Summary
			}
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.ToLower(name)+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(b)+"\n" {
				t.Fatalf("metrics of %s differ from %s:\n%s", name, golden, b)
			}
		})
	}
}

// realTraces is the logs the slice tests replay, by name: the SDSC-SP2
// slice in the repository and the shared logs.
func realTraces() map[string]string {
	traces := map[string]string{"sdsc-sp2-first500": "../workload/testdata/sdsc-sp2-first500.swf"}
	for _, name := range []string{"CTC-SP2-1996-3.1-cln", "KTH-SP2-1996-2.1-cln", "SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-cln", "CEA-Curie-2011-2.1-cln"} {
		traces[name] = filepath.Join(sharedTraces, name+".swf.gz")
	}
	return traces
}

// openSlice reads the first n jobs of the log at path and the header's
// machine; the test is skipped when the log is absent.
func openSlice(t *testing.T, path string, n int, opt workload.Options) (*workload.Trace, []index.Node) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", path, err)
	}
	tr, err := workload.Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	tr.Jobs = tr.Jobs[:min(n, len(tr.Jobs))]
	nodes, err := HeaderNodes(tr.Machine, false)
	if err != nil {
		t.Fatal(err)
	}
	return tr, nodes
}
