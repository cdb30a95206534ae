package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadSWF reads whole logs from memory (gunzip included), the
// project's slice and, when ../shared is present, the biggest real log.
func BenchmarkReadSWF(b *testing.B) {
	for _, tc := range []struct{ name, path string }{
		{"trace=sdsc-first500", "testdata/sdsc-sp2-first500.swf"},
		{"trace=CEA-Curie", filepath.Join(sharedTraces, "CEA-Curie-2011-2.1-cln.swf.gz")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			data, err := os.ReadFile(tc.path)
			if err != nil {
				b.Skip(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadSWF(bytes.NewReader(data), tc.name, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
