package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInventoryGolden(t *testing.T) {
	runGolden(t, "inventory", []cliCase{
		{"show-slurm-conf", []string{"inventory", "show", "--nodes", "testdata/nodes/small-slurm.conf"}},
		{"show-slurm-conf-json", []string{"inventory", "show", "--nodes", "testdata/nodes/small-slurm.conf", "--output", "json"}},
		{"show-flux-r", []string{"inventory", "show", "--nodes", "testdata/nodes/small.R.json"}},
		{"show-named-format", []string{"inventory", "show", "--nodes", "testdata/nodes/small.R.json", "--nodes-format", "flux-r", "--output", "json"}},
		{"show-wrong-named-format", []string{"inventory", "show", "--nodes", "testdata/nodes/small.R.json", "--nodes-format", "slurm-conf"}},
		{"show-unknown-format", []string{"inventory", "show", "--nodes", "testdata/nodes/small.R.json", "--nodes-format", "yaml"}},
		{"show-bad-output", []string{"inventory", "show", "--output", "xml"}},
		{"convert-slurm-conf", []string{"inventory", "convert", "--nodes", "testdata/nodes/small-slurm.conf", "--to", "sift-json"}},
		{"convert-bad-to", []string{"inventory", "convert", "--to", "csv"}},
	}, nil)
}

func TestFluxCLIGolden(t *testing.T) {
	runGolden(t, "flux", []cliCase{
		{"match-ranks", []string{"match", "--lang", "flux", "--nodes", "testdata/nodes/small.R.json", "--output", "ranks",
			`{"and":[{"hostlist":["n[1-5]"]},{"properties":["^debug"]}]}`}},
		{"match-ranks-none", []string{"match", "--lang", "flux", "--nodes", "testdata/nodes/small.R.json", "--output", "ranks",
			`{"properties":["nosuch"]}`}},
		{"match-requires", []string{"match", "--lang", "requires", "--nodes", "testdata/nodes/small.R.json", "--output", "names", "gpu or host:n0"}},
		{"match-requires-slurm-conf", []string{"match", "--lang", "requires", "--nodes", "testdata/nodes/small-slurm.conf", "--output", "count", "cascade and not gpu"}},
		{"check-requires-to-rfc31", []string{"check", "--lang", "requires", "--to", "rfc31", "host:n[1-3] and not debug"}},
		{"check-flux", []string{"check", "--lang", "flux", `{"or":[{"ranks":["0-3"]},{"not":[{"properties":["x"]}]}]}`}},
		{"check-flux-invalid", []string{"check", "--lang", "flux", `{"properties":["a&b"]}`}},
		{"check-requires-invalid", []string{"check", "--lang", "requires", "a or (b"}},
		{"check-slurm-to-rfc31", []string{"check", "--lang", "slurm", "--to", "rfc31", "a=1"}},
	}, nil)
}

// TestInventoryConvertRoundTrips checks convert -> load -> convert gives the
// same sift JSON for every format the tests have.
func TestInventoryConvertRoundTrips(t *testing.T) {
	for _, src := range []string{"testdata/nodes/small-slurm.conf", "testdata/nodes/small.R.json", "testdata/nodes/seed.json",
		"../../../shared/data/clusters/epcc-cirrus-slurm.conf"} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			if _, err := os.Stat(src); err != nil {
				t.Skip("not present")
			}
			first := runOK(t, "inventory", "convert", "--nodes", src)
			tmp := filepath.Join(t.TempDir(), "nodes.json")
			if err := os.WriteFile(tmp, []byte(first), 0o644); err != nil {
				t.Fatal(err)
			}
			if second := runOK(t, "inventory", "convert", "--nodes", tmp); second != first {
				t.Errorf("second conversion differs:\n%s\n---\n%s", first, second)
			}
		})
	}
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("sift %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}
