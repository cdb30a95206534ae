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
		checkTrace(t, tr)
	})
}

// checkTrace fails when an accepted trace holds a job nothing can replay
// or is out of submit order.
func checkTrace(t *testing.T, tr *Trace) {
	t.Helper()
	for i, j := range tr.Jobs {
		if j.Procs <= 0 || j.Run < 0 || j.Submit < 0 || (i > 0 && j.Submit < tr.Jobs[i-1].Submit) {
			t.Fatalf("job %d: %+v", i, j)
		}
	}
}

// FuzzReadSacct: no input makes the sacct reader panic; an error points
// inside the input; an accepted trace can be replayed.
func FuzzReadSacct(f *testing.F) {
	f.Add([]byte(sacctHeader + "100|100|alice|phys|proj1|standard|normal|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:05:00|2024-01-01T11:05:00|01:00:00|2-03:04:05|2|72|72|8000M|2|COMPLETED|billing=72,cpu=72,mem=8000M,node=2|billing=72,cpu=72,mem=8000M,node=2\n100.batch|100.batch||||||2024-01-01T10:05:00|||||01:00:00||1|36|36||1|COMPLETED|cpu=36,mem=4000M,node=1|\n"))
	f.Add([]byte("JobID,NCPUS,NNodes,Submit,Start,End,ElapsedRaw,State\n5312850_12,32,1,1703931144,1703931145,1704190353,259208,TIMEOUT\n5313194,144,4,1704119530,None,1704139565,0,CANCELLED by 10408\n"))
	f.Add([]byte("JobID|Submit|Start|Elapsed|Timelimit|ReqTRES|ReqMem|State|\n7|1709251200|1709251260|2:00|UNLIMITED|cpu=8,mem=1.5G|2Gc|COMPLETED|\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadSacct(bytes.NewReader(data), "fuzz", Options{KeepCancelled: len(data)%2 == 0, Estimate: Estimate{Policy: EstimateRunTime}})
		if err != nil {
			if off, ok := position.Of(err); ok && off > len(data) && !bytes.HasPrefix(data, gzipMagic) {
				t.Fatalf("offset %d outside %d bytes: %v", off, len(data), err)
			}
			return
		}
		checkTrace(t, tr)
	})
}

// FuzzReadSacctJSON: no input makes the sacct --json reader panic; an
// error points inside the input; an accepted trace can be replayed.
func FuzzReadSacctJSON(f *testing.F) {
	if data, err := os.ReadFile("testdata/sacct-v0.0.44.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"jobs": [{"job_id": 7, "state": "COMPLETED", "time": {"submission": 5, "start": 6, "end": 9, "elapsed": 3, "limit": 1}, "required": {"CPUs": 2}}]}`))
	f.Add([]byte(`{"jobs": [{"job_id": {"set": true, "number": 1e300}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadSacctJSON(bytes.NewReader(data), "fuzz", Options{})
		if err != nil {
			if off, ok := position.Of(err); ok && off > len(data) && !bytes.HasPrefix(data, gzipMagic) {
				t.Fatalf("offset %d outside %d bytes: %v", off, len(data), err)
			}
			return
		}
		checkTrace(t, tr)
	})
}
