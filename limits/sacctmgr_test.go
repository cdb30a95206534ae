package limits

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func readTestDump(t *testing.T) *Policy {
	t.Helper()
	data, err := os.ReadFile("testdata/cluster.dump")
	if err != nil {
		t.Fatal(err)
	}
	tl, _ := NewTRESList("gres/gpu", "gres/gpu:a100")
	p, warns, err := ReadDump("cluster.dump", data, tl)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	return p
}

// TestReadDump: every limit field of a sacctmgr dump lands where it
// belongs, partition users and typed GRES included.
func TestReadDump(t *testing.T) {
	p := readTestDump(t)
	if p.Cluster != "grace" || p.Root.Limits.MaxJobs != 500 || p.Root.Limits.GrpTRES[TRESCPU] != 10000 {
		t.Errorf("cluster line: %s %+v", p.Cluster, p.Root.Limits)
	}
	phys := p.Account("physics")
	if phys == nil || phys.Limits.GrpTRES[TRESMem] != 8*1024*1024 || phys.Limits.GrpJobs != 400 || phys.Limits.GrpWall != 100000 {
		t.Fatalf("physics: %+v", phys)
	}
	if p.Account("bio").Fairshare != FairshareParent {
		t.Error("Fairshare=parent")
	}
	theory := p.Account("theory")
	if theory.Parent != phys || theory.Limits.MaxTRESPerJob[TRESNode] != 8 || theory.Limits.MaxWall != 2880 {
		t.Errorf("theory: %+v", theory.Limits)
	}
	at := p.User("alice", "theory", "")
	if at == nil || at.Limits.MaxTRESPerNode[9] != 2 || at.Limits.GrpTRESRunMins[TRESCPU] != 10000 {
		t.Fatalf("alice/theory: %+v", at)
	}
	// Inheritance: alice/theory gets theory's MaxWall and root's MaxJobs.
	if at.eff.MaxWall != 2880 || at.eff.MaxJobs != 500 {
		t.Errorf("inherited: MaxWall %d MaxJobs %d", at.eff.MaxWall, at.eff.MaxJobs)
	}
	bob := p.User("bob", "physics", "gpu")
	if bob == nil || bob.DefaultQOS != "gpu" || strings.Join(bob.QOS, ",") != "normal,gpu" {
		t.Fatalf("bob/physics/gpu: %+v", bob)
	}
	if p.User("bob", "physics", "") != nil {
		t.Error("bob has only a partition association")
	}
	g := p.QOS("gpu")
	if g == nil || g.Flags != DenyOnLimit|OverPartQOS || g.GraceTime != 120 || g.MaxTRESPerUser[9] != 4 ||
		g.MaxJobsPerUser != 8 || g.MaxWall != 1440 || g.UsageFactor != 2 || g.GrpTRES[8] != 16 {
		t.Errorf("QOS gpu: %+v", g)
	}
}

// TestDumpRoundTrip: read → write → read gives the same tree, and writing
// it again gives the same text.
func TestDumpRoundTrip(t *testing.T) {
	p := readTestDump(t)
	var a, b bytes.Buffer
	if err := WriteDump(&a, p); err != nil {
		t.Fatal(err)
	}
	p2, warns, err := ReadDump("written", a.Bytes(), p.TRES)
	if err != nil || len(warns) != 0 {
		t.Fatalf("re-read: %v %v\n%s", err, warns, a.String())
	}
	if err := WriteDump(&b, p2); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("second write differs:\n%s\n---\n%s", a.String(), b.String())
	}
	var walk1, walk2 []string
	p.Walk(func(x *Assoc) { walk1 = append(walk1, x.Level()+p.assocLine(x)) })
	p2.Walk(func(x *Assoc) { walk2 = append(walk2, x.Level()+p2.assocLine(x)) })
	if strings.Join(walk1, "\n") != strings.Join(walk2, "\n") {
		t.Errorf("trees differ:\n%s\n---\n%s", strings.Join(walk1, "\n"), strings.Join(walk2, "\n"))
	}
}

// TestReadQOSParsable: the columns of `sacctmgr show qos --parsable2`,
// times in sacctmgr's format; writing and reading again gives the same
// QOS.
func TestReadQOSParsable(t *testing.T) {
	data, err := os.ReadFile("testdata/qos.parsable2")
	if err != nil {
		t.Fatal(err)
	}
	tl, _ := NewTRESList()
	p := NewPolicy(tl, "c")
	warns, err := ReadQOSParsable("qos.parsable2", data, p)
	if err != nil {
		t.Fatal(err)
	}
	// PreemptExemptTime is read and dropped: no column is unknown.
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	q := p.QOS("small")
	if q == nil {
		t.Fatal("no QOS small")
	}
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"Priority", uint64(q.Priority), 10}, {"GraceTime", uint64(q.GraceTime), 300},
		{"GrpTRES cpu", q.GrpTRES[TRESCPU], 64}, {"GrpJobs", uint64(q.GrpJobs), 10},
		{"GrpSubmitJobs", uint64(q.GrpSubmitJobs), 100}, {"GrpWall", uint64(q.GrpWall), 1440},
		{"MaxTRESPerJob node", q.MaxTRESPerJob[TRESNode], 2}, {"MaxTRESMinsPerJob", q.MaxTRESMinsPerJob[TRESCPU], 6000},
		{"MaxWall", uint64(q.MaxWall), 120}, {"MaxTRESPerUser", q.MaxTRESPerUser[TRESCPU], 8},
		{"MaxJobsPerUser", uint64(q.MaxJobsPerUser), 4}, {"MaxSubmitJobsPerUser", uint64(q.MaxSubmitJobsPerUser), 10},
		{"MaxTRESPerAccount", q.MaxTRESPerAccount[TRESCPU], 32}, {"MaxTRESRunMinsPerAccount", q.MaxTRESRunMinsPerAccount[TRESCPU], 50000},
		{"MaxTRESRunMinsPerUser", q.MaxTRESRunMinsPerUser[TRESCPU], 20000}, {"MaxJobsPerAccount", uint64(q.MaxJobsPerAccount), 6},
		{"MaxSubmitJobsPerAccount", uint64(q.MaxSubmitJobsPerAccount), 30}, {"MinTRESPerJob", q.MinTRESPerJob[TRESCPU], 2},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if q.Flags != DenyOnLimit|PartitionTimeLimit || strings.Join(q.Preempt, ",") != "normal" {
		t.Errorf("flags %s preempt %v", q.Flags, q.Preempt)
	}
	var out bytes.Buffer
	if err := WriteQOSParsable(&out, p); err != nil {
		t.Fatal(err)
	}
	p2 := NewPolicy(tl, "c")
	if _, err := ReadQOSParsable("written", out.Bytes(), p2); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if a, b := p.qosLine(p.QOS("small")), p2.qosLine(p2.QOS("small")); a != b {
		t.Errorf("round trip:\n%s\n%s", a, b)
	}
}

// TestConfigErrors: errors name the file, line and field; unknown fields
// are warnings.
func TestConfigErrors(t *testing.T) {
	tl, _ := NewTRESList()
	for _, c := range []struct {
		in, want string
	}{
		{"Cluster - 'c'\nParent - 'root'\nAccount - 'a':GrpJobs=x\n", "f:3: GrpJobs: not a count"},
		{"Cluster - 'c'\nAccount - 'a':GrpTRES=cpu=4,gres/gpu=1\n", "f:2: GrpTRES: offset 6: unknown TRES \"gres/gpu\" (not in AccountingStorageTRES)"},
		{"Cluster - 'c'\nParent - 'nope'\n", "f:2: parent account \"nope\" not defined yet"},
		{"Account - 'a'\n", "f:1: an Account line before the Cluster line"},
		{"Cluster - 'c'\nUser - 'u':MaxWallDurationPerJob=1-x\n", "f:2: MaxWallDurationPerJob: bad time \"1-x\""},
		{"Cluster - 'c':Comment='oops\n", "f:1: unterminated quote"},
		{"Cluster - 'c'\nWidget - 'w'\n", "f:2: unknown line kind \"Widget\""},
		{"QOS - 'q':Flags=Fast\nCluster - 'c'\n", "f:1: Flags: unknown QOS flag \"Fast\""},
		{"", "f:0: no Cluster line"},
	} {
		_, _, err := ReadDump("f", []byte(c.in), tl)
		var ce *ConfigError
		if !errors.As(err, &ce) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
	_, warns, err := ReadDump("f", []byte("Cluster - 'c':Frobnicate=3\n"), tl)
	if err != nil || len(warns) != 1 || warns[0].String() != "f:1: Frobnicate: unknown field, ignored" {
		t.Errorf("unknown field: %v %v", err, warns)
	}
	p := NewPolicy(tl, "c")
	if _, err := ReadQOSParsable("q", []byte("Name|MaxWall\nx|banana\n"), p); err == nil || err.Error() != "q:2: MaxWall: bad time \"banana\"" {
		t.Errorf("parsable error: %v", err)
	}
}

func TestParseMinutes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
	}{
		{"30", 30}, {"30:30", 31}, {"01:00:00", 60}, {"1-00:00:00", 1440}, {"2-12", 3600}, {"1-01:30", 1530},
		{"UNLIMITED", Infinite}, {"-1", Infinite},
	} {
		got, err := ParseMinutes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseMinutes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"x", "1:2:3:4", "1-2:3:4:5", "99999999999"} {
		if _, err := ParseMinutes(bad); err == nil {
			t.Errorf("ParseMinutes(%q) accepted", bad)
		}
	}
}
