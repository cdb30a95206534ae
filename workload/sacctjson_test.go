package workload

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodesift/sift/position"
)

// The sample is written for this test in the shape of Slurm's data_parser
// v0.0.44 (src/plugins/data_parser/v0.0.44/parsers.c, PARSER_ARRAY(JOB));
// the pending job is written as older data_parsers print state and limit.
func TestReadSacctJSON(t *testing.T) {
	f, err := os.Open("testdata/sacct-v0.0.44.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadSacctJSON(f, "j", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		{ID: 105, Name: "101_3", Submit: 0, Wait: 10, Run: 30, Procs: 4, AllocProcs: 4, Nodes: 1, TimeLimit: Unknown, MemKB: Unknown, Status: StatusFailed, User: "bob", Group: "chem", Account: "proj2", Partition: "standard", QOS: "long"},
		{ID: 100, Submit: 3600, Wait: 3900, Run: 3600, Procs: 72, AllocProcs: 72, Nodes: 2, TimeLimit: 7200, MemKB: 8000 * 1024 / 72, Status: StatusCompleted, User: "alice", Group: "phys", Account: "proj1", Partition: "standard", QOS: "normal"},
	}
	if diff := cmp.Diff(want, tr.Jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if tr.Skipped != (Skipped{Cancelled: 1, Unusable: 1}) {
		t.Errorf("skipped = %+v", tr.Skipped)
	}
}

func TestReadSacctJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		off  int
		line int
	}{
		{"syntax", "{\"jobs\": [\n  {\"job_id\": 1,,}]}", 26, 2},
		{"truncated", "{\"jobs\": [", 10, 1},
		{"no jobs", "{\"meta\": {}}", -1, 1},
		{"job id not a number", `{"jobs": [{"job_id": "x"}]}`, -1, 0},
		{"slurm error", `{"jobs": [], "errors": [{"error": "boom"}]}`, -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSacctJSON(strings.NewReader(tt.in), "j", Options{})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if pe.Offset != tt.off || pe.Line != tt.line {
				t.Errorf("err = %v: offset %d line %d, want %d %d", err, pe.Offset, pe.Line, tt.off, tt.line)
			}
			if _, ok := position.Of(err); ok != (tt.off >= 0) {
				t.Errorf("position.Of ok = %v", ok)
			}
		})
	}
}
