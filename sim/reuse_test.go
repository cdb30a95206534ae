package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/workload"
)

// reuseJobs is how many jobs of each log TestReusedPassesChangeNothing
// replays: enough for thousands of backfill passes.
const reuseJobs = 1500

// TestReusedPassesChangeNothing: the first jobs of each real log replayed
// with backfill, with the queue reusing the backfill passes nothing
// changed (sched.Options.ReusePasses) and without, give byte-identical
// per-job records (JSON Lines) and metrics.
func TestReusedPassesChangeNothing(t *testing.T) {
	defer func(v bool) { reusePasses = v }(reusePasses)
	for name, path := range realTraces() {
		t.Run(name, func(t *testing.T) {
			tr, nodes := openSlice(t, path, reuseJobs, workload.Options{Estimate: workload.Estimate{Policy: workload.EstimateRunTime}})
			var out [2][]byte
			for k, reuse := range []bool{false, true} {
				reusePasses = reuse
				cl, plug, err := NewCluster(nodes, WholeNode)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Run(tr, Options{Cluster: cl, Plugin: plug, Partition: HeaderPartition, Policy: Backfill, Config: sched.DefaultConfig()})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := WriteJSONL(&b, res.Jobs); err != nil {
					t.Fatal(err)
				}
				s, err := json.Marshal(res.Summary)
				if err != nil {
					t.Fatal(err)
				}
				out[k] = append(b.Bytes(), s...)
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Fatalf("%s: reused passes change the replay", name)
			}
		})
	}
}
