package yamlconf

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/nodesift/sift/limits"
)

// TestSameTreeAsTheDump: testdata/cluster.yaml says what
// limits/testdata/cluster.dump says; both read to the same policy, as
// WriteDump shows it, and the YAML's policy survives a dump round trip.
func TestSameTreeAsTheDump(t *testing.T) {
	tl := func() *limits.TRESList {
		l, err := limits.NewTRESList("gres/gpu", "gres/gpu:a100")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	y, err := os.ReadFile("testdata/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.ReadFile("../testdata/cluster.dump")
	if err != nil {
		t.Fatal(err)
	}
	py, warns, err := Read("cluster.yaml", y, tl())
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	pd, _, err := limits.ReadDump("cluster.dump", d, tl())
	if err != nil {
		t.Fatal(err)
	}
	var a, b, c bytes.Buffer
	if err := limits.WriteDump(&a, py); err != nil {
		t.Fatal(err)
	}
	if err := limits.WriteDump(&b, pd); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("YAML and dump differ:\n--- yaml\n%s--- dump\n%s", a.String(), b.String())
	}
	p2, _, err := limits.ReadDump("written", a.Bytes(), tl())
	if err != nil {
		t.Fatal(err)
	}
	if err := limits.WriteDump(&c, p2); err != nil {
		t.Fatal(err)
	}
	if c.String() != a.String() {
		t.Fatalf("read → write → read changed the tree:\n%s\n%s", a.String(), c.String())
	}
	if got := py.DefaultAccount("alice"); got != "physics" {
		t.Errorf("alice's default account %q, want physics", got)
	}
}

func TestErrorsCarryPositions(t *testing.T) {
	tests := []struct {
		name, in, field, msg string
		line, col, offset    int
	}{
		{"no cluster", "qos: {}\n", "cluster", "missing", 1, 1, 0},
		{"bad TRES count", "cluster: c\naccounts:\n  a:\n    GrpTRES: cpu=lots\n", "GrpTRES", "not a count", 4, 14, 43},
		{"account twice under one parent", "cluster: c\naccounts:\n  a: {}\n  a: {}\n", "account", "defined twice", 4, 3, 31},
		{"field twice", "cluster: c\nqos:\n  q:\n    MaxJobsPerUser: 1\n    maxjobsperuser: 2\n", "maxjobsperuser", "set twice", 5, 5, 47},
		{"name with a colon", "cluster: c\naccounts:\n  'a:b': {}\n", "account", "colon", 3, 3, 23},
		{"accounts not a mapping", "cluster: c\naccounts: [a, b]\n", "accounts", "mapping", 2, 11, 21},
		{"default account not a bool", "cluster: c\naccounts:\n  a:\n    users:\n      u: {DefaultAccount: maybe}\n", "DefaultAccount", "true or false", 5, 27, 63},
		{"syntax", "cluster: c\nqos:\n  q: [\n", "", "did not find expected node content", 3, 1, 16},
		{"value a mapping", "cluster: c\nroot:\n  MaxJobs: {a: 1}\n", "MaxJobs", "expected a value", 3, 12, 28},
		{"multibyte column", "cluster: c\naccounts:\n  é: {MaxJobs: x}\n", "MaxJobs", "", 3, 16, 37},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Read("f.yaml", []byte(tc.in), nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.Field != tc.field || !strings.Contains(e.Error(), tc.msg) || e.Line != tc.line || e.Column != tc.col || e.ByteOffset() != tc.offset {
				t.Fatalf("got %q field %q at %d:%d offset %d; want field %q, %q, at %d:%d offset %d",
					e.Error(), e.Field, e.Line, e.Column, e.ByteOffset(), tc.field, tc.msg, tc.line, tc.col, tc.offset)
			}
		})
	}
}

func TestUnknownFieldsWarn(t *testing.T) {
	in := "cluster: c\nsite: x\nqos:\n  q: {MaxJobsPerUser: 1, Colour: red}\naccounts:\n  a: {Shape: round}\n"
	_, warns, err := Read("f.yaml", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{"f.yaml:2: site: unknown top-level key", "f.yaml:4: Colour: unknown field in qos q", "f.yaml:6: Shape: unknown field in account a"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSpecExample is the spec's example (slurm-resource-limits.txt): the
// partition QOS sets MaxJobs=20, the job QOS nothing, the user
// association MaxJobs=4 and MaxSubmitJobs=50; the YAML form reads to
// those limits.
func TestSpecExample(t *testing.T) {
	in := `cluster: c
qos:
  part: {MaxJobsPerUser: 20}
  job: {}
accounts:
  a:
    QOS: [normal, job]
    users:
      u: {MaxJobs: 4, MaxSubmitJobs: 50}
`
	p, _, err := Read("f.yaml", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := p.User("u", "a", "")
	if a == nil || a.Limits.MaxJobs != 4 || a.Limits.MaxSubmitJobs != 50 || p.QOS("part").MaxJobsPerUser != 20 {
		t.Fatalf("association %+v, QOS part %+v", a, p.QOS("part"))
	}
}

func TestTooLarge(t *testing.T) {
	_, _, err := Read("f.yaml", make([]byte, MaxSize+1), nil)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%v, want ErrTooLarge", err)
	}
}
