package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/inventory"
)

// durations are the run-dependent part of --explain output.
var durations = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s|m[0-9.]+s|h[0-9.]+m[0-9.]+s)\b`)

func scrubDurations(s string) string { return durations.ReplaceAllString(s, "<time>") }

func TestMatchGolden(t *testing.T) {
	const seed = "testdata/nodes/seed.json"
	runGolden(t, "match", []cliCase{
		{"default-synthetic-hostlist", []string{"match", "zed>=10&zed<20"}},
		{"synthetic-count", []string{"match", "--nodes", "synthetic:5000,seed=3", "--output", "count", "zed>=10&zed<20"}},
		{"synthetic-seed-document", []string{"match", "--nodes", "synthetic:300", "--output", "names",
			"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)"}},
		{"file-hostlist", []string{"match", "--nodes", seed, "zed>=10&zed<20"}},
		{"file-names", []string{"match", "--nodes", seed, "--output", "names", "zed>=10&zed<20"}},
		{"file-json", []string{"match", "--nodes", seed, "--output", "json", "a!=1.24"}},
		{"file-count", []string{"match", "--nodes", seed, "--output", "count", "foo<baz"}},
		{"file-explain", []string{"match", "--nodes", seed, "--explain", "a=1.23|zed=12"}},
		{"explain-slurm-leaf-text", []string{"match", "--nodes", seed, "--explain", "(a<2 | foo = baz )&zed!=12"}},
		{"explain-flux-leaf-text", []string{"match", "--lang", "flux", "--nodes", "testdata/nodes/small.R.json", "--explain",
			`{"and":[{"hostlist":["n[1-5]"]},{"properties":["^debug","gpu"]},{"ranks":["0-3"]}]}`}},
		{"explain-requires-leaf-text", []string{"match", "--lang", "requires", "--nodes", "testdata/nodes/small.R.json", "--explain",
			`host: n0 | gpu,debug | "rank:1-3"`}},
		{"nothing-matches-hostlist", []string{"match", "--nodes", seed, "zed=99"}},
		{"nothing-matches-json", []string{"match", "--nodes", seed, "--output", "json", "zed=99"}},
		{"json-lines", []string{"match", "--nodes", "testdata/nodes/lines.jsonl", "zed>11"}},
		{"invalid-constraint", []string{"match", "--nodes", seed, "a=5&b=5|c=5"}},
		{"invalid-constraint-before-bad-file", []string{"match", "--nodes", "testdata/nodes/missing.json", "a=="}},
		{"missing-node-file", []string{"match", "--nodes", "testdata/nodes/missing.json", "a=1"}},
		{"invalid-node-file", []string{"match", "--nodes", "testdata/nodes/unknown-field.jsonl", "a=1"}},
		{"invalid-synthetic-spec", []string{"match", "--nodes", "synthetic:0", "a=1"}},
		{"unknown-output", []string{"match", "--output", "xml", "a=1"}},
		{"unknown-lang", []string{"match", "--lang", "cobol", "a=1"}},
	}, scrubDurations)
}

// TestMatchAgreesWithReference runs sift match end to end (node file or
// synthetic cluster, compiler, index, VM, output) and compares its names with
// the reference evaluator walking every node.
func TestMatchAgreesWithReference(t *testing.T) {
	exprs := []string{
		"zed>=10&zed<20", "a=1.23", "a!=1.24", "a!=1.23|foo!=blah", "b=200", "b=true", "foo<baz",
		"(c<=0.0001&a=1.25)|zed=23.0",
		"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
		"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)",
		"a!=1.23", "b=0", "b=false", "foo>baz", "c=3", "c>=3", "maint!=1", "os=rhel9,arch=zen3,gpu_mem_gb>=80",
	}
	const spec = "synthetic:3000,seed=11"
	s, err := inventory.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	nodes, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	facts := make([]ast.Facts, len(nodes))
	for i, n := range nodes {
		facts[i] = ast.Facts{Name: n.Name, Rank: n.Rank, Properties: n.Features}
		facts[i].Extra, facts[i].HasExtra = ast.ParseExtra(n.Extra)
		if n.Extra == nil {
			facts[i].Extra, facts[i].HasExtra = nil, false
		}
	}
	for _, expr := range exprs {
		t.Run(expr, func(t *testing.T) {
			tree, err := slurm.Parse(expr)
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			for i := range facts {
				if ast.Eval(tree, &facts[i]) {
					want.WriteString(facts[i].Name + "\n")
				}
			}
			var stdout, stderr bytes.Buffer
			if code := run([]string{"match", "--nodes", spec, "--output", "names", "--", expr}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if diff := cmp.Diff(want.String(), stdout.String()); diff != "" {
				t.Errorf("match (-reference +sift):\n%s", diff)
			}
		})
	}
}
