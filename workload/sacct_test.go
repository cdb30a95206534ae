package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodesift/sift/position"
)

const sacctHeader = "JobID|JobIDRaw|User|Group|Account|Partition|QOS|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqCPUS|ReqMem|ReqNodes|State|AllocTRES|ReqTRES\n"

func TestReadSacctParsable2(t *testing.T) {
	in := sacctHeader +
		"100|100|alice|phys|proj1|standard|normal|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:05:00|2024-01-01T11:05:00|01:00:00|2-03:04:05|2|72|72|8000M|2|COMPLETED|billing=72,cpu=72,mem=8000M,node=2|billing=72,cpu=72,mem=8000M,node=2\n" +
		"100.batch|100.batch||||||2024-01-01T10:05:00|2024-01-01T10:05:00|2024-01-01T10:05:00|2024-01-01T11:05:00|01:00:00||1|36|36||1|COMPLETED|cpu=36,mem=4000M,node=1|\n" +
		"100.0|100.0||||||2024-01-01T10:05:00|2024-01-01T10:05:00|2024-01-01T10:05:00|2024-01-01T11:05:00|01:00:00||2|72|72||2|COMPLETED|cpu=72,node=2|\n" +
		"101_3|105|bob|chem|proj2|standard|long|2024-01-01T09:00:00|Unknown|2024-01-01T09:00:10|2024-01-01T09:00:40|00:00:30|UNLIMITED|1|4|4|2Gc|1|FAILED|cpu=4,node=1|cpu=4,node=1\n" +
		"102|102|carol|chem|proj2|standard|normal|2024-01-01T11:00:00|2024-01-01T11:00:00|None|2024-01-01T11:30:00|00:00:00|01:00:00|1|36|36|4Gn|1|CANCELLED by 1000|cpu=36,node=1|cpu=36,node=1\n" +
		"103|103|carol|chem|proj2|standard|normal|2024-01-01T11:00:00|2024-01-01T11:00:00|2024-01-01T11:01:00|2024-01-01T11:30:00|00:29:00|Partition_Limit|1|36|36|4Gn|1|CANCELLED by 1000|cpu=36,node=1|cpu=36,node=1\n" +
		"104|104|dave|bio|proj3|standard|normal|2024-01-01T12:00:00|2024-01-01T12:00:00|Unknown|Unknown|00:00:00|01:00:00|1|0|36||1|PENDING||cpu=36,node=1\n" +
		"105|106|dave|bio|proj3|standard|normal|2024-01-01T12:00:00|2024-01-01T12:00:00|2024-01-01T12:00:00|2024-01-01T13:00:00|01:00:00|60|1|36|36||1|TIMEOUT|cpu=36,node=1|cpu=36,node=1\n"
	tests := []struct {
		name    string
		opt     Options
		want    []Job
		skipped Skipped
	}{
		{"default", Options{}, []Job{
			{ID: 105, Name: "101_3", Submit: 0, Wait: 10, Run: 30, Procs: 4, AllocProcs: 4, Nodes: 1, TimeLimit: Unknown, MemKB: 2048 * 1024, Status: StatusFailed, User: "bob", Group: "chem", Account: "proj2", Partition: "standard", QOS: "long"},
			{ID: 100, Submit: 3600, Wait: 300, Run: 3600, Procs: 72, AllocProcs: 72, Nodes: 2, TimeLimit: 2*86400 + 3*3600 + 4*60 + 5, MemKB: 8000 * 1024 / 72, Status: StatusCompleted, User: "alice", Group: "phys", Account: "proj1", Partition: "standard", QOS: "normal"},
			{ID: 106, Name: "105", Submit: 10800, Wait: 0, Run: 3600, Procs: 36, AllocProcs: 36, Nodes: 1, TimeLimit: 3600, MemKB: Unknown, Status: StatusTimeout, User: "dave", Group: "bio", Account: "proj3", Partition: "standard", QOS: "normal"},
		}, Skipped{Cancelled: 2, Steps: 2, Unusable: 1}},
		{"keep cancelled that ran, estimate by run time", Options{KeepCancelled: true, Estimate: Estimate{Policy: EstimateRunTime}}, []Job{
			{ID: 105, Name: "101_3", Submit: 0, Wait: 10, Run: 30, Procs: 4, AllocProcs: 4, Nodes: 1, TimeLimit: 60, MemKB: 2048 * 1024, Status: StatusFailed, User: "bob", Group: "chem", Account: "proj2", Partition: "standard", QOS: "long"},
			{ID: 100, Submit: 3600, Wait: 300, Run: 3600, Procs: 72, AllocProcs: 72, Nodes: 2, TimeLimit: 2*86400 + 3*3600 + 4*60 + 5, MemKB: 8000 * 1024 / 72, Status: StatusCompleted, User: "alice", Group: "phys", Account: "proj1", Partition: "standard", QOS: "normal"},
			{ID: 103, Submit: 7200, Wait: 60, Run: 29 * 60, Procs: 36, AllocProcs: 36, Nodes: 1, TimeLimit: 29 * 60, MemKB: 4096 * 1024 / 36, Status: StatusCancelled, User: "carol", Group: "chem", Account: "proj2", Partition: "standard", QOS: "normal"},
			{ID: 106, Name: "105", Submit: 10800, Wait: 0, Run: 3600, Procs: 36, AllocProcs: 36, Nodes: 1, TimeLimit: 3600, MemKB: Unknown, Status: StatusTimeout, User: "dave", Group: "bio", Account: "proj3", Partition: "standard", QOS: "normal"},
		}, Skipped{Cancelled: 1, Steps: 2, Unusable: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadSacct(strings.NewReader(in), "s", tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if tr.Skipped != tt.skipped {
				t.Errorf("skipped = %+v, want %+v", tr.Skipped, tt.skipped)
			}
			if want := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC).Unix(); tr.StartTime != want {
				t.Errorf("start = %d, want %d", tr.StartTime, want)
			}
		})
	}
}

func TestReadSacctFormsOfTheSameJob(t *testing.T) {
	want := Job{ID: 7, Submit: 0, Wait: 60, Run: 120, Procs: 8, AllocProcs: 8, TimeLimit: 300, MemKB: Unknown, Status: StatusCompleted}
	tests := []struct{ name, in string }{
		{"parsable2", "JobID|Submit|Start|End|Timelimit|NCPUS|State\n7|2024-03-01T00:00:00|2024-03-01T00:01:00|2024-03-01T00:03:00|00:05:00|8|COMPLETED\n"},
		{"parsable with trailing bar", "JobID|Submit|Start|End|Timelimit|NCPUS|State|\n7|2024-03-01T00:00:00|2024-03-01T00:01:00|2024-03-01T00:03:00|00:05:00|8|COMPLETED|\n"},
		{"comma, Unix seconds, raw fields", "jobid,submit,start,end,elapsedraw,timelimitraw,alloccpus,state\r\n7,1709251200,1709251260,1709251380,120,5,8,COMPLETED\r\n"},
		{"elapsed only, TRES sizes", "JobIDRaw|Submit|Start|Elapsed|Timelimit|ReqTRES|State\n7|1709251200|1709251260|2:00|5|cpu=8|COMPLETED\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadSacct(strings.NewReader(tt.in), "s", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Jobs) != 1 {
				t.Fatalf("jobs = %+v", tr.Jobs)
			}
			got := tr.Jobs[0]
			if got.AllocProcs == Unknown {
				got.AllocProcs = 8 // ReqTRES alone says nothing of the allocation
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadSacctLocation(t *testing.T) {
	in := "JobID|Submit|Start|End|NCPUS|State\n7|2024-03-01T01:00:00|2024-03-01T01:01:00|2024-03-01T01:03:00|8|COMPLETED\n"
	loc := time.FixedZone("CET", 3600)
	tr, err := ReadSacct(strings.NewReader(in), "s", Options{Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).Unix(); tr.StartTime != want {
		t.Errorf("start = %d, want %d", tr.StartTime, want)
	}
}

func TestReadSacctErrorsPointAtTheByte(t *testing.T) {
	h := "JobID|Submit|Start|End|Timelimit|NCPUS|State\n"
	tests := []struct {
		name  string
		in    string
		line  int
		off   int
		field string
	}{
		{"bad date", h + "7|2024-13-01T00:00:00|None|None|5|8|PENDING\n", 2, len(h) + 2, "Submit"},
		{"bad limit", h + "7|1|2|3|5 days|8|COMPLETED\n", 2, len(h) + 8, "Timelimit"},
		{"bad count", h + "7|1|2|3|5|eight|COMPLETED\n", 2, len(h) + 10, "NCPUS"},
		{"too many fields", h + "7|1|2|3|5|8|COMPLETED|x\n", 2, len(h) + 22, ""},
		{"too few fields", h + "7|1|2\n", 2, len(h) + 5, ""},
		{"bad job id", h + "x7|1|2|3|5|8|COMPLETED\n", 2, len(h), "JobID"},
		{"no header", "", 1, 0, ""},
		{"header without JobID", "Submit|NCPUS\n", 1, 0, ""},
		{"field named twice", "JobID|Submit|JobID\n", 1, 13, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSacct(strings.NewReader(tt.in), "s", Options{})
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("err = %v, want a *ParseError of ErrSyntax", err)
			}
			if pe.Line != tt.line || pe.Field != tt.field {
				t.Errorf("err = %v: line %d field %q, want %d %q", err, pe.Line, pe.Field, tt.line, tt.field)
			}
			if off, _ := position.Of(err); off != tt.off {
				t.Errorf("offset = %d, want %d (%v)", off, tt.off, err)
			}
		})
	}
}

// TestReadSacctCirrus reads the real Cirrus subset: 11,635 rows, 266 of
// them CANCELLED, 67 of those after they started (SOURCES.md: 199 never
// started); array tasks; Unix seconds; no Timelimit column.
func TestReadSacctCirrus(t *testing.T) {
	path := filepath.Join(sharedTraces, "cirrus-2024Q1-cpu-sacct-subset.csv.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no shared traces:", err)
	}
	tests := []struct {
		opt       Options
		jobs      int
		cancelled int
	}{
		{Options{}, 11635 - 266, 266},
		{Options{KeepCancelled: true, Estimate: Estimate{Policy: EstimateRunTime}}, 11635 - 199, 199},
	}
	for _, tt := range tests {
		tr, err := OpenSacct(path, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Jobs) != tt.jobs || tr.Skipped != (Skipped{Cancelled: tt.cancelled}) {
			t.Errorf("%+v: %d jobs, skipped %+v; want %d jobs and %d cancelled", tt.opt, len(tr.Jobs), tr.Skipped, tt.jobs, tt.cancelled)
		}
		names := 0
		for _, j := range tr.Jobs {
			if j.Procs <= 0 || j.Nodes <= 0 || j.Wait < 0 || j.Run < 0 {
				t.Fatalf("job %+v", j)
			}
			if (j.TimeLimit == Unknown) != (tt.opt.Estimate.Policy == EstimateNone) {
				t.Fatalf("job %+v: limit with estimate %v", j, tt.opt.Estimate)
			}
			if j.Name != "" {
				names++
			}
		}
		if names == 0 {
			t.Error("no array task kept its JobID as Name")
		}
	}
}

func TestParseEstimate(t *testing.T) {
	tests := []struct {
		in   string
		want Estimate
		ok   bool
	}{
		{"none", Estimate{}, true},
		{"runtime", Estimate{Policy: EstimateRunTime}, true},
		{"fixed:96:00:00", Estimate{Policy: EstimateFixed, Fixed: 96 * 3600}, true},
		{"fixed:4-00:00:00", Estimate{Policy: EstimateFixed, Fixed: 96 * 3600}, true},
		{"fixed:60", Estimate{Policy: EstimateFixed, Fixed: 3600}, true},
		{"fixed:", Estimate{}, false},
		{"fixed:0", Estimate{}, false},
		{"sometimes", Estimate{}, false},
	}
	for _, tt := range tests {
		got, err := ParseEstimate(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseEstimate(%q) = %+v, %v", tt.in, got, err)
		}
		if tt.ok && tt.in != "" {
			back, err := ParseEstimate(got.String())
			if err != nil || back != got {
				t.Errorf("%q: String %q reads back as %+v, %v", tt.in, got.String(), back, err)
			}
		}
	}
}

func TestEstimateRunTimeRoundsUpToMinutes(t *testing.T) {
	e := Estimate{Policy: EstimateRunTime}
	for run, want := range map[int64]int64{0: 60, 1: 60, 60: 60, 61: 120, 3600: 3600} {
		if got := e.limit(run); got != want {
			t.Errorf("limit(%d) = %d, want %d", run, got, want)
		}
	}
}

func TestSlurmDuration(t *testing.T) {
	tests := []struct {
		in      string
		minutes bool
		want    int64
		ok      bool
	}{
		{"2-03:04:05", true, 2*86400 + 3*3600 + 4*60 + 5, true},
		{"2-03", true, 2*86400 + 3*3600, true},
		{"2-03:04", true, 2*86400 + 3*3600 + 4*60, true},
		{"03:04:05", true, 3*3600 + 4*60 + 5, true},
		{"04:05", false, 4*60 + 5, true},
		{"00:00:01.250", false, 1, true},
		{"90", true, 5400, true},
		{"90", false, 90, true},
		{"1:2:3:4", true, 0, false},
		{"-5", true, 0, false},
		{"a:b", true, 0, false},
	}
	for _, tt := range tests {
		got, ok := slurmDuration(tt.in, tt.minutes)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("slurmDuration(%q, %v) = %d, %v; want %d, %v", tt.in, tt.minutes, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadTellsFormatsApart(t *testing.T) {
	tests := []struct {
		file string
		want Format
	}{
		{"testdata/sdsc-sp2-first500.swf", FormatSWF},
		{"testdata/sacct-v0.0.44.json", FormatSacctJSON},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := Sniff(data); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.file, got, tt.want)
		}
		tr, err := Open(tt.file, Options{})
		if err != nil || len(tr.Jobs) == 0 {
			t.Errorf("Open(%s) = %v jobs, %v", tt.file, tr, err)
		}
	}
	if got := Sniff([]byte(sacctHeader)); got != FormatSacct {
		t.Errorf("sacct header sniffed as %v", got)
	}
	tr, err := Read(strings.NewReader("JobID,Submit,Start,End,NCPUS,State\n1,10,20,30,4,COMPLETED\n"), "c", Options{})
	if err != nil || len(tr.Jobs) != 1 {
		t.Errorf("CSV: %+v, %v", tr, err)
	}
}
