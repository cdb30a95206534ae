package workload

import (
	"bytes"
	"os"
	"testing"

	"github.com/nodesift/sift/position"
)

// FuzzReadSWF: no input makes the SWF reader panic; an error points inside
// the input; an accepted trace is in submit order and every job in it can
// be replayed.
func FuzzReadSWF(f *testing.F) {
	if data, err := os.ReadFile("testdata/sdsc-sp2-first500.swf"); err == nil {
		f.Add(data[len(data)-2000:])
	}
	f.Add([]byte("; MaxNodes: 338 (batch partition; 512 total)\n; MaxProcs: 338\n; Partition: 1 a b\n1 0 5 100 4 1.5 -1 -1 200 -1 1 1 1 -1 -1 1 -1 -1\n"))
	f.Add([]byte("2 1 -1 -1 0 -1 -1 8 200 -1 5 1 1 -1 -1 -1 -1 -1\r\n3 0 0 50 4 -1 -1 4 200 -1 2 1 1 -1 -1 -1 -1 -1"))
	f.Add([]byte("1 0 0 1x 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadSWF(bytes.NewReader(data), "fuzz", Options{KeepCancelled: len(data)%2 == 0})
		if err != nil {
			if off, ok := position.Of(err); ok && (off < 0 || off > len(data)) && !bytes.HasPrefix(data, gzipMagic) {
				t.Fatalf("offset %d outside %d bytes: %v", off, len(data), err)
			}
			return
		}
		for i, j := range tr.Jobs {
			if j.Procs <= 0 || j.Run < 0 || j.Submit < 0 || (i > 0 && j.Submit < tr.Jobs[i-1].Submit) {
				t.Fatalf("job %d: %+v", i, j)
			}
		}
	})
}
