package inventory

import (
	"encoding/json"
	"fmt"
	"testing"
)

// nodeFile renders nodes as a JSON Lines sift node file.
func nodeFile(b *testing.B, n int) []byte {
	var out []byte
	for _, nd := range Synthetic(n, 1) {
		line, err := json.Marshal(map[string]any{
			"name": nd.Name, "extra": json.RawMessage(nd.Extra), "features": nd.Features,
			"cpus": nd.CPUs, "memory_mb": nd.MemoryMB, "state": nd.State, "partitions": nd.Partitions,
		})
		if err != nil {
			b.Fatal(err)
		}
		if nd.Extra == nil {
			continue
		}
		out = append(append(out, line...), '\n')
	}
	return out
}

func BenchmarkParseNodeFile(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			data := nodeFile(b, n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ParseNodeFile("bench.jsonl", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
