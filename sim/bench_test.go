package sim

import (
	"fmt"
	"testing"

	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/workload"
)

// BenchmarkRun replays a slice of the synthetic workload on whole nodes.
func BenchmarkRun(b *testing.B) {
	for _, c := range []struct {
		nodes, jobs int
		policy      Policy
	}{{128, 500, FIFO}, {128, 500, Backfill}, {1024, 500, Backfill}} {
		b.Run(fmt.Sprintf("policy=%s/nodes=%d/jobs=%d", c.policy, c.nodes, c.jobs), func(b *testing.B) {
			m := workload.Machine{MaxNodes: c.nodes, MaxProcs: c.nodes}
			tr := workload.Synthetic(1, c.jobs, m)
			nodes, err := HeaderNodes(m, false)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				cl, plug, err := NewCluster(nodes, WholeNode)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Run(tr, Options{Cluster: cl, Plugin: plug, Partition: HeaderPartition, Policy: c.policy, Config: sched.DefaultConfig()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
