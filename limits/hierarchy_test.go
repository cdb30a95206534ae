package limits

import (
	"strings"
	"testing"
)

func explainText(t *testing.T, p *Policy, user, account, part, qos string) string {
	t.Helper()
	eff, err := p.Explain(user, account, part, qos)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range eff {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestSpecHierarchyExample is the example of resource_limits "Hierarchy":
// MaxJobs=20 in the partition QOS, nothing in the job QOS, MaxJobs=4 and
// MaxSubmitJobs=50 in the user association give MaxJobs=20 and
// MaxSubmitJobs=50.
func TestSpecHierarchyExample(t *testing.T) {
	f := newFixture(t)
	f.p.QOS("pq").MaxJobsPerUser = 20
	alice := f.p.User("alice", "phys", "")
	alice.Limits.MaxJobs = 4
	alice.Limits.MaxSubmitJobs = 50
	f.p.Finish()
	got := explainText(t, f.p, "alice", "phys", "batch", "normal")
	want := "MaxJobs=20 (partition QOS pq)\nMaxSubmitJobs=50 (user association alice/phys)\n"
	if got != want {
		t.Fatalf("explain:\n%s\nwant:\n%s", got, want)
	}
	// The 21st running job waits on the QOS limit, not the user's MaxJobs=4.
	for i := uint32(1); i <= 20; i++ {
		j := f.job(i, "alice", "phys", "batch", "normal", "cpu=1,node=1", 10)
		if r := f.submit(j); r != ReasonNone {
			t.Fatalf("job %d refused: %s", i, r)
		}
		if r := f.start(j, []uint32{i}, 100); r != ReasonNone {
			t.Fatalf("job %d held: %s", i, r)
		}
	}
	j := f.job(21, "alice", "phys", "batch", "normal", "cpu=1,node=1", 10)
	f.submit(j)
	if r := f.start(j, []uint32{21}, 100); r != ReasonQOSMaxJobPerUser {
		t.Errorf("21st job: %s, want QOSMaxJobsPerUserLimit", r)
	}
	if lvl := f.p.FailedLevel(j); lvl != "partition QOS pq" {
		t.Errorf("21st job held at %q", lvl)
	}
	// MaxSubmitJobs=50 comes from the user association.
	for i := uint32(22); i <= 50; i++ {
		if r := f.submit(f.job(i, "alice", "phys", "batch", "normal", "cpu=1,node=1", 10)); r != ReasonNone {
			t.Fatalf("job %d refused: %s", i, r)
		}
	}
	j51 := f.job(51, "alice", "phys", "batch", "normal", "cpu=1,node=1", 10)
	if r := f.submit(j51); r != ReasonAssocMaxSubJob {
		t.Errorf("51st submit: %s, want AssocMaxSubmitJobLimit", r)
	}
	if lvl := f.p.FailedLevel(j51); lvl != "user association alice/phys" {
		t.Errorf("51st submit refused at %q", lvl)
	}
}

// TestHierarchyRules: one case per rule of resource_limits "Hierarchy"
// and "Association specific limits".
func TestHierarchyRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		section string
		setup   func(f *fixture)
		part    string
		qos     string
		account string
		want    string
	}{
		{"partition QOS before job QOS", "Hierarchy 1-2", func(f *fixture) {
			f.p.QOS("pq").MaxWall = 60
			f.p.QOS("normal").MaxWall = 30
		}, "batch", "normal", "phys", "MaxWall=60 (partition QOS pq)\n"},
		{"OverPartQOS puts the job QOS first", "QOS specific limits", func(f *fixture) {
			f.p.QOS("pq").MaxWall = 60
			f.p.QOS("normal").MaxWall = 30
			f.p.QOS("normal").Flags = OverPartQOS
		}, "batch", "normal", "phys", "MaxWall=30 (job QOS normal)\n"},
		{"job QOS before user association", "Hierarchy 2-3", func(f *fixture) {
			f.p.QOS("normal").MaxJobsPerUser = 7
			f.p.User("alice", "phys", "").Limits.MaxJobs = 3
		}, "plain", "normal", "phys", "MaxJobs=7 (job QOS normal)\n"},
		{"user association before account", "Association specific limits 1-2", func(f *fixture) {
			f.p.User("alice", "phys", "").Limits.MaxWall = 10
			f.p.Account("phys").Limits.MaxWall = 20
		}, "plain", "normal", "phys", "MaxWall=10 (user association alice/phys)\n"},
		{"account limit inherited by the user (slurmdbd)", "Hierarchy 4", func(f *fixture) {
			f.p.Account("phys").Limits.MaxJobs = 5
		}, "plain", "normal", "theory", "MaxJobs=5 (account association phys, inherited by user association alice/theory)\n"},
		{"root limit inherited last", "Hierarchy 5", func(f *fixture) {
			f.p.Root.Limits.MaxSubmitJobs = 9
		}, "plain", "normal", "phys", "MaxSubmitJobs=9 (root association, inherited by user association alice/phys)\n"},
		{"TRES limits inherit entry by entry", "Hierarchy 4", func(f *fixture) {
			f.p.Account("phys").Limits.MaxTRESPerJob = f.tres("cpu=16,mem=1000")
			f.p.Account("theory").Limits.MaxTRESPerJob = f.tres("cpu=8")
		}, "plain", "normal", "theory", "MaxTRESPerJob=cpu=8 (account association theory, inherited by user association alice/theory)\nMaxTRESPerJob=mem=1000 (account association phys, inherited by user association alice/theory)\n"},
		{"Grp limits at every level", "Hierarchy note on Grp", func(f *fixture) {
			f.p.User("alice", "theory", "").Limits.GrpTRES = f.tres("cpu=100")
			f.p.Account("theory").Limits.GrpTRES = f.tres("cpu=50")
			f.p.Account("phys").Limits.GrpTRES = f.tres("cpu=10")
		}, "plain", "normal", "theory", "GrpTRES=cpu=100 (user association alice/theory)\nGrpTRES=cpu=50 (account association theory)\nGrpTRES=cpu=10 (account association phys)\n"},
		{"a QOS Grp limit shadows the associations'", "Hierarchy", func(f *fixture) {
			f.p.QOS("normal").GrpJobs = 4
			f.p.Account("phys").Limits.GrpJobs = 2
		}, "plain", "normal", "phys", "GrpJobs=4 (job QOS normal)\n"},
		{"QOS MaxJobsPerAccount turns off the association MaxJobs", "acct_policy pre-select", func(f *fixture) {
			f.p.QOS("normal").MaxJobsPerAccount = 6
			f.p.User("alice", "phys", "").Limits.MaxJobs = 3
		}, "plain", "normal", "phys", "MaxJobsPerAccount=6 (job QOS normal)\n"},
		{"partition MaxTime bounds the job", "Hierarchy note on Max[Time|Wall]", func(f *fixture) {
			f.p.Partition("plain").MaxTime = 120
		}, "plain", "normal", "phys", "MaxTime=120 (partition plain)\n"},
		{"PartitionTimeLimit lifts the partition bound", "Hierarchy note on Max[Time|Wall]", func(f *fixture) {
			f.p.Partition("plain").MaxTime = 120
			f.p.QOS("normal").Flags = PartitionTimeLimit
		}, "plain", "normal", "phys", "MaxTime=120 (ignored: QOS PartitionTimeLimit) (partition plain)\n"},
		{"PartitionMaxNodes and PartitionMinNodes", "Hierarchy note on [Min|Max]Nodes", func(f *fixture) {
			f.p.Partition("plain").MaxNodes = 4
			f.p.Partition("plain").MinNodes = 2
			f.p.QOS("normal").Flags = PartitionMaxNodes
		}, "plain", "normal", "phys", "MaxNodes=4 (ignored: QOS PartitionMaxNodes) (partition plain)\nMinNodes=2 (partition plain)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			c.setup(f)
			f.p.Finish()
			if got := explainText(t, f.p, "alice", c.account, c.part, c.qos); got != c.want {
				t.Errorf("%s:\n%s\nwant:\n%s", c.section, got, c.want)
			}
		})
	}
}
