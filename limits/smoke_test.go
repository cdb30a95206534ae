package limits

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSmokeAccountingReplay replays the lab's smoke accounting case
// (lab/slurm/smoke/recorded/smoke-accounting.json, recorded from Slurm
// 284c3b95 with AccountingStorageEnforce=associations,limits,qos): QOS
// small with MaxTRESPerUser=cpu=8, the user's default QOS. Two 8-CPU jobs
// and a 1-CPU job are submitted: the first runs, the others pend with
// QOSMaxCpuPerUserLimit; after the first is cancelled the second runs and
// the third still pends. The recording's node placement is the selector's
// business; here only the limits' verdicts are compared.
func TestSmokeAccountingReplay(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "lab", "slurm", "smoke", "recorded", "smoke-accounting.json"))
	if err != nil {
		t.Skip("recording not present:", err)
	}
	var rec struct {
		Sacctmgr string
		Cases    []struct {
			Jobs []struct {
				Spec   string
				Action string
				Slurm  struct{ State, Reason string }
			}
			After struct {
				Jobs []struct{ State, Reason string }
			}
		}
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Cases) != 1 || len(rec.Cases[0].Jobs) < 3 || len(rec.Cases[0].After.Jobs) != 3 {
		t.Fatalf("unexpected recording shape")
	}
	// The sacctmgr commands of the recording, as a policy.
	p, err := ParseSacctmgrCommands([]byte(rec.Sacctmgr), "c", map[string]string{"@USER@": "labuser"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Enforce, err = ParseEnforce("associations,limits,qos"); err != nil {
		t.Fatal(err)
	}
	p.AddPartition(NewPartition("p"))
	f := &fixture{t: t, p: p}
	var jobs []*Job
	for i, rj := range rec.Cases[0].Jobs[:3] {
		cpus := map[string]string{"ntasks=8,account=lab": "cpu=8,node=1", "ntasks=1,account=lab": "cpu=1,node=1"}[rj.Spec]
		if cpus == "" {
			t.Fatalf("unknown spec %q", rj.Spec)
		}
		j := f.job(uint32(i+1), "labuser", "lab", "p", "", cpus, NoVal)
		if r := f.submit(j); r != ReasonNone {
			t.Fatalf("job %d refused: %s", i+1, r)
		}
		jobs = append(jobs, j)
	}
	outcome := func(j *Job, now int64) (string, string) {
		if j.Running() {
			return "RUNNING", "None"
		}
		if r := f.start(j, []uint32{0}, now); r != ReasonNone {
			return "PENDING", r.String()
		}
		return "RUNNING", "None"
	}
	for i, j := range jobs {
		st, reason := outcome(j, 100)
		want := rec.Cases[0].Jobs[i].Slurm
		if st != want.State || reason != want.Reason {
			t.Errorf("job %d: %s %s, Slurm %s %s", i+1, st, reason, want.State, want.Reason)
		}
	}
	p.End(jobs[0], 200) // cancel:1
	for i, j := range jobs[1:] {
		st, reason := outcome(j, 201)
		want := rec.Cases[0].After.Jobs[i+1]
		if st != want.State || reason != want.Reason {
			t.Errorf("after cancel, job %d: %s %s, Slurm %s %s", i+2, st, reason, want.State, want.Reason)
		}
	}
}
