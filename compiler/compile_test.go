package compiler

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodesift/sift/compiler/slurm"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestCompileErrorsKeepTheByteOffset(t *testing.T) {
	for _, text := range []string{"a=5&&&b=5", "a=1(b=2)", "", " (a=b)"} {
		t.Run(text, func(t *testing.T) {
			_, err := Compile(Slurm, text)
			var perr *slurm.Error
			if !errors.As(err, &perr) {
				t.Fatalf("Compile(%q) error %v does not wrap *slurm.Error", text, err)
			}
			var off interface{ ByteOffset() int }
			if !errors.As(err, &off) || off.ByteOffset() != perr.Offset {
				t.Fatalf("ByteOffset not reachable through %v", err)
			}
		})
	}
}

// TestDisassemblyGolden pins the code generated for the seed document's
// requests; run with -update after a deliberate codegen change.
func TestDisassemblyGolden(t *testing.T) {
	var sb strings.Builder
	for _, e := range benchExprs {
		p, err := Compile(Slurm, e.text)
		if err != nil {
			t.Fatalf("Compile(%q): %v", e.text, err)
		}
		sb.WriteString("# " + e.text + "\n" + p.Disassemble() + "\n")
	}
	path := filepath.Join("testdata", "disassembly.golden")
	if *update {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("disassembly differs from %s:\n%s", path, got)
	}
}
