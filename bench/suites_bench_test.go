package bench

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkSuites runs every registered suite under go test -bench, sift and
// its baselines as engine=... sub-benchmarks, so `make bench` and benchstat
// see the same operations as `sift bench` (which times them itself).
func BenchmarkSuites(b *testing.B) {
	for _, s := range Registry() {
		sizes := s.Sizes
		if s.SizeFree {
			sizes = []int{0}
		}
		for _, n := range sizes {
			b.Run(s.Name+"/nodes="+strconv.Itoa(n), func(b *testing.B) {
				c, err := s.Setup(n)
				if err != nil {
					b.Fatal(err)
				}
				if c.Verify != nil {
					if err := c.Verify(); err != nil {
						b.Fatal(err)
					}
				}
				engines := append([]Baseline{{Name: "sift", Op: c.Op}}, c.Baselines...)
				for _, e := range engines {
					b.Run("engine="+strings.ReplaceAll(e.Name, "/", "-"), func(b *testing.B) {
						b.ReportAllocs()
						if c.Bytes > 0 {
							b.SetBytes(c.Bytes)
						}
						for b.Loop() {
							e.Op()
						}
					})
				}
			})
		}
	}
}
