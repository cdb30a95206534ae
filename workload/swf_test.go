package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodesift/sift/position"
)

// sharedTraces is where the project's copies of the real logs live; tests
// that need them skip when it is absent.
const sharedTraces = "../../shared/data/traces"

func TestReadSWFMapsFields(t *testing.T) {
	in := "; Version: 2.2\n" +
		"; UnixStartTime: 835823160\n" +
		"; MaxNodes: 338 (batch partition; 512 total)\n" +
		"; MaxProcs: 338\n" +
		"; Partition: 4 large\n" +
		"    1        0 588530    937  306 142.00    -1   -1  35100    -1  1  97  -1 307  3 -1 -1 -1\n" +
		"    2   164472     75    553   40 552.51    -1   48  43200  2048  0   4   1  -1 -1  4 -1 -1\n" +
		"    3   164480     -1     10   -1     -1    -1    8     -1    -1 -1   5   1  -1 -1  9 -1 -1\r\n"
	tr, err := ReadSWF(strings.NewReader(in), "t.swf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Trace{
		Source:    "t.swf",
		StartTime: 835823160,
		Machine:   Machine{MaxNodes: 338, MaxProcs: 338},
		Jobs: []Job{
			{ID: 1, Submit: 0, Wait: 588530, Run: 937, Procs: 306, AllocProcs: 306, TimeLimit: 35100, MemKB: Unknown, Status: StatusCompleted, User: "97"},
			{ID: 2, Submit: 164472, Wait: 75, Run: 553, Procs: 48, AllocProcs: 40, TimeLimit: 43200, MemKB: 2048, Status: StatusFailed, User: "4", Group: "1", Partition: "large"},
			{ID: 3, Submit: 164480, Wait: Unknown, Run: 10, Procs: 8, AllocProcs: Unknown, TimeLimit: Unknown, MemKB: Unknown, Status: StatusUnknown, User: "5", Group: "1", Partition: "9"},
		},
	}
	if diff := cmp.Diff(want, tr); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestReadSWFSkipsAndCounts(t *testing.T) {
	lines := "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"2 1 -1 -1 0 -1 -1 8 200 -1 5 1 1 -1 -1 -1 -1 -1\n" + // cancelled before it started (SDSC-SP2)
		"3 2 0 50 4 -1 -1 4 200 -1 5 1 1 -1 -1 -1 -1 -1\n" + // cancelled after it ran
		"4 3 0 50 4 -1 -1 4 200 -1 2 1 1 -1 -1 -1 -1 -1\n" + // partial record
		"5 4 0 50 -1 -1 -1 -1 200 -1 1 1 1 -1 -1 -1 -1 -1\n" + // no processors (KTH-SP2 job 27313)
		"6 5 0 -1 4 -1 -1 4 200 -1 0 1 1 -1 -1 -1 -1 -1\n" + // no run time
		"7 6 0 50 -1 -1 -1 128 86400 -1 0 1 1 -1 -1 -1 -1 -1\n" // requested, never allocated (CEA-Curie)
	tests := []struct {
		name    string
		opt     Options
		ids     []int64
		skipped Skipped
	}{
		{"default skips cancelled", Options{}, []int64{1, 7}, Skipped{Cancelled: 2, Partial: 1, Unusable: 2}},
		{"keep cancelled keeps those that ran", Options{KeepCancelled: true}, []int64{1, 3, 7}, Skipped{Cancelled: 1, Partial: 1, Unusable: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadSWF(strings.NewReader(lines), "t", tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, j := range tr.Jobs {
				ids = append(ids, j.ID)
			}
			if diff := cmp.Diff(tt.ids, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if tr.Skipped != tt.skipped {
				t.Errorf("skipped = %+v, want %+v", tr.Skipped, tt.skipped)
			}
		})
	}
}

func TestReadSWFSortsBySubmit(t *testing.T) {
	in := "1 50 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
		"2 10 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
		"3 50 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
		"4 10 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
	tr, err := ReadSWF(strings.NewReader(in), "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, j := range tr.Jobs {
		ids = append(ids, j.ID)
	}
	if diff := cmp.Diff([]int64{2, 4, 1, 3}, ids); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestReadSWFErrorsPointAtTheByte(t *testing.T) {
	good := "1 0 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
	tests := []struct {
		name  string
		in    string
		line  int
		off   int
		field string
		class error
	}{
		{"letter in a field", good + "2 0 0 1x 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", 2, len(good) + 6, "run time", ErrSyntax},
		{"too few fields", good + "; c\n2 0 0 1 1\n", 3, len(good) + 4 + 9, "", ErrSyntax},
		{"too many fields", "1 0 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 7\n", 1, 48, "", ErrSyntax},
		{"overflow", "1 99999999999999999999 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", 1, 2, "submit time", ErrRange},
		{"lone minus", "1 - 0 1 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", 1, 2, "submit time", ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSWF(strings.NewReader(tt.in), "t", Options{})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.Line != tt.line || pe.Field != tt.field || !errors.Is(err, tt.class) {
				t.Errorf("err = %+v, want line %d field %q class %v", pe, tt.line, tt.field, tt.class)
			}
			if off, ok := position.Of(err); !ok || off != tt.off {
				t.Errorf("offset = %d, want %d (%v)", off, tt.off, err)
			}
		})
	}
}

func TestReadSWFGzipByMagicNotName(t *testing.T) {
	plain, err := os.ReadFile("testdata/sdsc-sp2-first500.swf")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	a, err := ReadSWF(bytes.NewReader(plain), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadSWF(bytes.NewReader(gz.Bytes()), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("gzip and plain differ:\n%s", diff)
	}
	if _, err := ReadSWF(bytes.NewReader(gz.Bytes()[:gz.Len()/2]), "x", Options{}); err == nil {
		t.Error("a truncated gzip stream read without error")
	}
}

func TestReadSWFSDSCSlice(t *testing.T) {
	tr, err := OpenSWF("testdata/sdsc-sp2-first500.swf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Machine != (Machine{MaxNodes: 128, MaxProcs: 128}) || tr.StartTime != 893466664 {
		t.Errorf("header = %+v start %d", tr.Machine, tr.StartTime)
	}
	if got := len(tr.Jobs) + tr.Skipped.Total(); got != 500 {
		t.Errorf("jobs %d + skipped %+v != 500 lines", len(tr.Jobs), tr.Skipped)
	}
	if tr.Skipped.Cancelled == 0 {
		t.Error("no cancelled job skipped; the slice has some")
	}
}

// TestReadSWFRealLogs reads every log in ../shared and checks what
// SOURCES.md says of it: the line counts, the header's machine, and each
// log's trap.
func TestReadSWFRealLogs(t *testing.T) {
	tests := []struct {
		file    string
		lines   int
		machine Machine
		check   func(t *testing.T, tr *Trace)
	}{
		{"CTC-SP2-1996-3.1-cln.swf.gz", 77222, Machine{338, 338}, func(t *testing.T, tr *Trace) {
			// Field 8 is -1 everywhere: Procs comes from field 5.
			for _, j := range tr.Jobs {
				if j.Procs != j.AllocProcs {
					t.Fatalf("job %d: procs %d alloc %d", j.ID, j.Procs, j.AllocProcs)
				}
			}
		}},
		{"KTH-SP2-1996-2.1-cln.swf.gz", 28476, Machine{100, 100}, func(t *testing.T, tr *Trace) {
			if tr.Skipped.Unusable != 1 {
				t.Errorf("unusable = %d, want 1 (job 27313 has no processors)", tr.Skipped.Unusable)
			}
		}},
		{"SDSC-SP2-1998-4.2-cln.swf.gz", 59715, Machine{128, 128}, func(t *testing.T, tr *Trace) {
			if tr.Skipped.Cancelled != 16598 {
				t.Errorf("cancelled = %d, want 16598 (status 5 lines)", tr.Skipped.Cancelled)
			}
		}},
		{"HPC2N-2002-2.2-cln.swf.gz", 202871, Machine{240, 240}, func(t *testing.T, tr *Trace) {
			unknown := 0
			for _, j := range tr.Jobs {
				if j.Status == StatusUnknown {
					unknown++
				}
			}
			if unknown != 878 {
				t.Errorf("status unknown = %d, want 878", unknown)
			}
		}},
		{"CEA-Curie-2011-2.1-cln.swf.gz", 312826, Machine{5544, 93312}, func(t *testing.T, tr *Trace) {
			if tr.Skipped.Cancelled != 17486 || tr.Skipped.Unusable != 4 {
				t.Errorf("skipped = %+v, want 17486 cancelled and 4 without processors", tr.Skipped)
			}
			if tr.Jobs[0].Partition == "" {
				t.Error("partition names not read from the header")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(sharedTraces, tt.file)
			if _, err := os.Stat(path); err != nil {
				t.Skip("no shared traces:", err)
			}
			tr, err := OpenSWF(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(tr.Jobs) + tr.Skipped.Total(); got != tt.lines {
				t.Errorf("jobs %d + skipped %+v = %d, want %d lines", len(tr.Jobs), tr.Skipped, got, tt.lines)
			}
			if tr.Machine != tt.machine {
				t.Errorf("machine = %+v, want %+v", tr.Machine, tt.machine)
			}
			for i, j := range tr.Jobs {
				if j.Procs <= 0 || j.Run < 0 || j.Submit < 0 || (i > 0 && j.Submit < tr.Jobs[i-1].Submit) {
					t.Fatalf("job %d unusable or out of order: %+v", j.ID, j)
				}
			}
			tt.check(t, tr)
		})
	}
}
