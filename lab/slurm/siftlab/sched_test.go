package main

import (
	"slices"
	"strings"
	"testing"
)

func TestSchedSbatchArgs(t *testing.T) {
	ids := []string{"11", "", "13"}
	for _, tc := range []struct {
		spec string
		want []string
		bad  bool
	}{
		{spec: "nodes=2,exclusive,time=30,priority=900", want: []string{"--nodes=2", "--exclusive", "--time=30", "--priority=900", "--dependency=afterany:7"}},
		{spec: "partition=a:b,begin=+600", want: []string{"--partition=a,b", "--begin=now+600", "--dependency=afterany:7"}},
		{spec: "dependency=afterok:@1:@3", want: []string{"--dependency=afterany:7,afterok:11:13"}},
		{spec: "dependency=afterok:@2", bad: true}, // refused at submit
		{spec: "dependency=afterok:@4", bad: true}, // not submitted yet
	} {
		got, err := schedSbatchArgs(tc.spec, ids, "7")
		if tc.bad {
			if err == nil {
				t.Errorf("%q: want an error, got %q", tc.spec, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.spec, got, err, tc.want)
		}
	}
}

func TestResolveDepsKeepsLongerReferences(t *testing.T) {
	ids := make([]string, 12)
	for i := range ids {
		ids[i] = "j" + strings.Repeat("x", i)
	}
	got, err := resolveDeps("after:@1:@12", ids)
	if err != nil || got != "after:j:jxxxxxxxxxxx" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestFoldLeavesPutsFlatObjectsOnOneLine(t *testing.T) {
	in := "{\n \"cases\": [\n  {\n   \"jobs\": [\n    {\n     \"spec\": \"n=1\",\n     \"slurm\": {\n      \"state\": \"RUNNING\"\n     }\n    }\n   ]\n  }\n ]\n}"
	want := "{\n \"cases\": [\n  {\n   \"jobs\": [\n    {\"spec\": \"n=1\", \"slurm\": {\"state\": \"RUNNING\"}}\n   ]\n  }\n ]\n}"
	if got := string(foldLeaves([]byte(in))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenumberPorts(t *testing.T) {
	conf := "SelectType=select/linear\nNodeName=n1 Port=17001 CPUs=4\nNodeName=n2 CPUs=4 Port=17002\nPartitionName=p Nodes=ALL"
	want := "SelectType=select/linear\nNodeName=n1 Port=23001 CPUs=4\nNodeName=n2 CPUs=4 Port=23002\nPartitionName=p Nodes=ALL"
	if got := renumberPorts(conf, 23000); got != want {
		t.Errorf("got\n%s", got)
	}
}

// TestSchedgenIsSeeded: the same seed writes the same files, within the
// ranges the generator promises.
func TestSchedgenIsSeeded(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := schedgen([]string{"-files", "3", "-n", "4", "-seed", "5", "-out", dir}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"sched-5-01.json", "sched-5-02.json", "sched-5-03.json"} {
		ra, err := readRecording(a + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := readRecording(b + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if ra.SlurmConf != rb.SlurmConf || len(ra.Cases) != 4 {
			t.Fatalf("%s: not reproducible", name)
		}
		if n := len(nodeThreads(ra.SlurmConf)); n < 4 || n > 64 {
			t.Errorf("%s: %d nodes", name, n)
		}
		for i, c := range ra.Cases {
			if c.Mode != "schedule" || len(c.Jobs) < 10 || len(c.Jobs) > 300 || c.Name != rb.Cases[i].Name || len(c.Jobs) != len(rb.Cases[i].Jobs) {
				t.Errorf("%s case %d: mode %s, %d jobs", name, i, c.Mode, len(c.Jobs))
			}
		}
	}
}
