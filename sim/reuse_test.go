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
	replaysAgree(t, func(on bool) { reusePasses = on })
}

// TestReasonsReadWhenChangedChangeNothing: the first jobs of each real
// log replayed with backfill, reading the pending jobs' reasons after a
// pass only when the queue's reason count changed or a job joined them
// (readChangedReasons), and after every pass, give byte-identical per-job
// records (their reason histories) and metrics.
func TestReasonsReadWhenChangedChangeNothing(t *testing.T) {
	defer func(v bool) { readChangedReasons = v }(readChangedReasons)
	replaysAgree(t, func(on bool) { readChangedReasons = on })
}

// replaysAgree replays the first reuseJobs jobs of each real log with
// backfill with a fast path off and on (set), and fails unless the
// per-job records and the metrics are byte-identical.
func replaysAgree(t *testing.T, set func(on bool)) {
	t.Helper()
	for name, path := range realTraces() {
		t.Run(name, func(t *testing.T) {
			tr, nodes := openSlice(t, path, reuseJobs, workload.Options{Estimate: workload.Estimate{Policy: workload.EstimateRunTime}})
			var out [2][]byte
			for k, on := range []bool{false, true} {
				set(on)
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
				t.Fatalf("%s: the fast path changes the replay", name)
			}
		})
	}
}
