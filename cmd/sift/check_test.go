package main

import "testing"

func TestCheckGolden(t *testing.T) {
	runGolden(t, "check", []cliCase{
		{"seed-document-valid", []string{"check", "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)"}},
		{"comma-is-and", []string{"check", "a=1,b=2&c=3"}},
		{"whitespace-kept-verbatim", []string{"check", "--", "( a=b)"}},
		{"dash-after-double-dash", []string{"check", "--", "-a=1"}},
		{"explicit-lang", []string{"check", "--lang", "slurm", "foo<baz"}},
		{"mixed-operators", []string{"check", "a=5&b=5|c=5"}},
		{"leading-space", []string{"check", "--", " (a=b)"}},
		{"empty", []string{"check", ""}},
		{"repeated-operator", []string{"check", "a====5"}},
		{"unknown-lang", []string{"check", "--lang", "cobol", "a=1"}},
		{"unknown-to", []string{"check", "--to", "cobol", "a=1"}},
		{"no-expression", []string{"check"}},
		{"two-expressions", []string{"check", "a=1", "b=2"}},
	}, nil)
}
