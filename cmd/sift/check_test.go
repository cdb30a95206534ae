package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodesift/sift/position"
)

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
		{"requires-bad-hostlist-points-into-the-text", []string{"check", "--lang", "requires", "rank:0-3 & host:x[3-1]"}},
		{"requires-unknown-operator-points-into-the-text", []string{"check", "--lang", "requires", "a & foo:bar"}},
		{"requires-syntax-error", []string{"check", "--lang", "requires", "a & (b | c"}},
	}, nil)
}

func TestLongInputErrorEchoesAWindowAroundTheCaret(t *testing.T) {
	text := strings.Repeat("a=1&", 30000) + "b=&" + strings.Repeat("c=2&", 100)
	_, errOut, code := runCLI("check", "--lang", "slurm", text)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != exitInvalidInput || len(lines) != 3 {
		t.Fatalf("exit %d, stderr %d bytes in %d lines; want exit 2 and 3 lines", code, len(errOut), len(lines))
	}
	echo, caret := lines[1], lines[2]
	if len(echo) > 2+3+position.Width+3 || !strings.HasPrefix(echo, "  ...") || !strings.HasSuffix(echo, "...") {
		t.Errorf("echo %q: want at most about 100 bytes cut with ... at both ends", echo)
	}
	if len(caret) > len(echo) || !strings.HasSuffix(caret, "^") {
		t.Errorf("caret line %q does not point inside the echo %q", caret, echo)
	}
}

// --expr-file reads a long constraint from a file or standard input, with
// the same result as the argument.
func TestExprFileReadsTheConstraintFromAFileOrStandardInput(t *testing.T) {
	long := strings.Repeat("host:n1 | ", 6_000) + "host:n[1-3]"
	file := filepath.Join(t.TempDir(), "requires.txt")
	if err := os.WriteFile(file, []byte(long+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want, errs, code := runCLI("check", "--lang", "requires", long)
	if code != exitOK {
		t.Fatalf("as an argument: %d %.200q", code, errs)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"file", []string{"check", "--lang", "requires", "--expr-file", file}, ""},
		{"standard input", []string{"check", "--lang", "requires", "--expr-file", "-"}, long + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, strings.NewReader(tc.stdin), &out, &errb); code != exitOK || out.String() != want {
				t.Fatalf("exit %d, %d bytes out (want %d), stderr %.200q", code, out.Len(), len(want), errb.String())
			}
		})
	}
	out, _, code := runCLI("match", "--nodes", "testdata/select/nodes.json", "--lang", "requires", "--expr-file", file)
	if code != exitOK || out != "n[1-3]\n" {
		t.Errorf("match --expr-file: %d %q", code, out)
	}
	for _, args := range [][]string{
		{"check", "a=1", "--expr-file", file},
		{"match", "--expr-file", filepath.Join(t.TempDir(), "missing")},
	} {
		if _, errs, code := runCLI(args...); code == exitOK {
			t.Errorf("%q: exit 0, stderr %q", args, errs)
		}
	}
}
