package bench

import (
	"strconv"
	"testing"
)

// BenchmarkMemoryCopy measures this machine's copy bandwidth (MB/s counts
// the bytes copied; each is read once and written once), the yardstick
// BENCHMARKS.md sets the engine's word loops against: 12,504 bytes is one
// dense leaf at 100k nodes (1,563 words), which a run keeps in cache; 64 MiB
// is far past every cache.
func BenchmarkMemoryCopy(b *testing.B) {
	for _, n := range []int{12504, 64 << 20} {
		b.Run("bytes="+strconv.Itoa(n), func(b *testing.B) {
			src := make([]uint64, n/8)
			dst := make([]uint64, n/8)
			for i := range src {
				src[i] = uint64(i) * 0x9e3779b97f4a7c15
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}
