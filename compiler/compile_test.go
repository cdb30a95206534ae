package compiler

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
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
			if off, ok := position.Of(err); !ok || off != perr.Offset {
				t.Fatalf("position.Of(%v) = %d, %v; want %d", err, off, ok, perr.Offset)
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

func TestFluxLanguagesAgreeWithReference(t *testing.T) {
	data := make([]byte, 400)
	for i := range data {
		data[i] = byte(i * 7)
	}
	nodes := genNodes(&byteSource{data: data})
	tests := []struct {
		lang Lang
		text string
	}{
		{Requires, "gpu"},
		{Requires, "gpu and not ib"},
		{Requires, "gpu|ib -big"},
		{Requires, "rank:0-10 or host:node3"},
		{Requires, "not (gpu or big) ib"},
		{Flux, `{"properties":["gpu","^ib"]}`},
		{Flux, `{"or":[{"ranks":["1-3,7"]},{"not":[{"properties":["big"]}]}]}`},
		{Flux, `{"and":[]}`},
		{Flux, `{"or":[]}`},
		{Flux, `{"not":[{"and":[{"properties":["gpu"]},{"properties":["ib"]}]}]}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.lang)+":"+tt.text, func(t *testing.T) {
			if _, err := Compile(tt.lang, tt.text); err != nil {
				t.Fatalf("Compile: %v", err)
			}
			checkText(t, nodes, tt.lang, tt.text)
		})
	}
}

func TestFluxErrorsKeepTheByteOffset(t *testing.T) {
	for _, tt := range []struct {
		lang Lang
		text string
	}{{Flux, `{"properties":[1]}`}, {Flux, `{"bogus":[]}`}, {Requires, "gpu and"}, {Requires, "(gpu"}} {
		_, err := Compile(tt.lang, tt.text)
		if _, ok := position.Of(err); !ok {
			t.Errorf("Compile(%s, %q) error %v has no position", tt.lang, tt.text, err)
		}
	}
}

func TestMalformedTreesAreErrorsNotPanics(t *testing.T) {
	var nilSnap *index.Snapshot
	trees := []ast.Node{
		nil,
		&ast.And{X: []ast.Node{nil, &ast.Property{Name: "x"}}},
		&ast.Not{},
		&ast.Compare{Key: "a", Op: 99, Value: "1"},
	}
	for _, tree := range trees {
		if _, err := CompileAST(tree, nilSnap); err == nil {
			t.Errorf("CompileAST(%#v) succeeded", tree)
		}
	}
	if _, err := CompileFor(Slurm, "a=1|b<2", nilSnap); err != nil {
		t.Errorf("CompileFor with a nil snapshot: %v", err)
	}
}

func TestNegatedOperandsOfAndBecomeAndNot(t *testing.T) {
	for _, text := range []string{"gpu -big -ib", "-big -ib gpu", "-big gpu -ib"} {
		p, err := Compile(Requires, text)
		if err != nil {
			t.Fatal(err)
		}
		dis := p.Disassemble()
		if strings.Count(dis, " and_not\n") != 2 || strings.Contains(dis, " not\n") {
			t.Errorf("%s: want two and_not instructions and no not:\n%s", text, dis)
		}
	}
}
