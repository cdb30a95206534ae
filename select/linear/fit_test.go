package linear

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// TestCountThresholdAgreesWithJobTest: where countThreshold says the best
// fit is a matter of count, jobTest succeeds on a random candidate set
// exactly when the set holds at least the threshold, for node ranges,
// desired counts, CPU totals and CPU caps, with runs of every length.
func TestCountThresholdAgreesWithJobTest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 18))
	checked := 0
	for world := 0; world < 60; world++ {
		n := 1 + r.IntN(300)
		cpus := 1 + r.IntN(32)
		nodes := make([]index.Node, n)
		for i := range nodes {
			nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), CPUs: cpus, MemoryMB: 1000}
		}
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		p := New(job.NewCluster(s), Config{})
		for q := 0; q < 40; q++ {
			minN := 1 + r.IntN(n)
			maxN := []int{0, minN, minN + r.IntN(n), r.IntN(n + 1)}[r.IntN(4)]
			reqN := []int{minN, maxN, minN + r.IntN(4)}[r.IntN(3)]
			w := &want{minCPUs: []int{0, minN, r.IntN(n * cpus * 2), minN * cpus}[r.IntN(4)]}
			if r.IntN(3) == 0 {
				w.cpuCap = 1 + r.IntN(2*cpus)
			}
			need, ok := p.countThreshold(w, minN, maxN, reqN)
			if !ok {
				t.Fatalf("world %d: no threshold for %+v", world, *w)
			}
			for k := 0; k < 8; k++ {
				cand := bitset.New(n)
				keep := r.Float64()
				for id := 0; id < n; id++ {
					if r.Float64() < keep {
						cand.Add(uint32(id))
					}
				}
				_, fits := p.jobTest(w, cand, bitset.New(n), minN, maxN, reqN)
				if fits != (cand.Count() >= need) {
					t.Fatalf("world %d (%d nodes of %d CPUs): %d candidates, min %d max %d req %d %+v: jobTest %v, threshold %d",
						world, n, cpus, cand.Count(), minN, maxN, reqN, *w, fits, need)
				}
				checked++
			}
		}
	}
	t.Logf("%d sets checked", checked)
}
