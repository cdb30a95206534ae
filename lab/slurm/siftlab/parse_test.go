package main

import (
	"reflect"
	"testing"
)

func TestParseJobUnfoldsDetailLines(t *testing.T) {
	out := `JobId=7 JobName=wrap
   JobState=RUNNING Reason=None Dependency=(null)
   StartTime=1764048000 EndTime=Unknown Deadline=N/A
   NodeList=t1,u1
   NumNodes=2 NumCPUs=20 NumTasks=20 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
     Nodes=t1 CPU_IDs=0-3,8 Mem=2000 GRES=
     Nodes=u[1-2] CPU_IDs=0-1 Mem=0 GRES=gpu:a100:2(IDX:0-1)
`
	got := parseJob(out, map[string]int{"t1": 2, "u1": 1, "u2": 2})
	want := Outcome{State: "RUNNING", Reason: "None", Nodes: "t1,u1", NumCPUs: 20, StartEpoch: 1764048000, PerNode: []Node{
		{Name: "t1", CPUIDs: "0-3,8", Cores: []int{0, 1, 4}, MemMB: 2000},
		{Name: "u1", CPUIDs: "0-1", Cores: []int{0, 1}, Gres: "gpu:a100:2(IDX:0-1)"},
		{Name: "u2", CPUIDs: "0-1", Cores: []int{0}, Gres: "gpu:a100:2(IDX:0-1)"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestParseTestOnlyReadsWillRun(t *testing.T) {
	tests := []struct {
		name   string
		stderr string
		failed bool
		want   Outcome
	}{
		{"starts", "sbatch: Job 12 to start at 1764048000 on cluster sift a using 16 processors on nodes t1 in partition p\n", false,
			Outcome{OK: true, StartEpoch: 1764048000, Processors: 16, Nodes: "t1"}},
		{"refused", "allocation failure: Requested node configuration is not available\n", true,
			Outcome{Error: "allocation failure: Requested node configuration is not available"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseTestOnly(tc.stderr, tc.failed); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSampleIsReproducible(t *testing.T) {
	cases := make([]Case, 200)
	for i := range cases {
		cases[i].Name = string(rune('a' + i%26))
	}
	a, b := sample(cases, "x.json", 0.2, 1), sample(cases, "x.json", 0.2, 1)
	if len(a) != len(b) || len(a) == 0 || len(a) == len(cases) {
		t.Fatalf("sample sizes %d and %d of %d", len(a), len(b), len(cases))
	}
}

func TestSbatchArgsFromSpec(t *testing.T) {
	got := sbatchArgs("nodes=2,exclusive,mem-per-cpu=2000")
	want := []string{"--nodes=2", "--exclusive", "--mem-per-cpu=2000"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

// TestParseSdiagKeysBySection: each section's "Total cycles" is its own key
// (the recorder's main_cycles and backfill_cycles), read from sdiag output
// of Slurm 26.11.
func TestParseSdiagKeysBySection(t *testing.T) {
	out := `Jobs submitted: 329
Main schedule statistics (microseconds):
	Last cycle:   34
	Total cycles: 129
	Cycles per minute: 129

Main scheduler exit:
	End of job queue:129

Backfilling stats
	Total backfilled jobs (since last slurm start): 52
	Total cycles: 40
	Last cycle when: Thu Nov 26 07:39:04 2026 (1795678744)
`
	got := parseSdiag(out)
	for key, want := range map[string]string{
		"main Total cycles":     "129",
		"backfill Total cycles": "40",
		"main Last cycle":       "34",
		"main End of job queue": "129",
	} {
		if got[key] != want {
			t.Errorf("%s: %q, want %q", key, got[key], want)
		}
	}
	if _, ok := got["Jobs submitted"]; ok {
		t.Errorf("a line before any section was read: %v", got)
	}
}
