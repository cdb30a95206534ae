package compiler

import (
	"errors"
	"fmt"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/vm"
)

// Lang names a constraint language.
type Lang string

// The constraint languages sift compiles.
const (
	// Slurm is Slurm's --extra constraint syntax.
	Slurm Lang = "slurm"
	// Flux is a Flux RFC 31 constraint object in JSON.
	Flux Lang = "flux"
	// Requires is the text of Flux's --requires option.
	Requires Lang = "requires"
)

// ErrUnknownLang is returned for a language name sift does not know.
var ErrUnknownLang = errors.New("compiler: unknown constraint language")

// Compile parses text in lang, optimizes it without statistics and
// generates its program. Parse errors are the front end's, wrapped, so
// their byte offsets stay reachable with errors.As.
func Compile(lang Lang, text string) (*vm.Program, error) {
	return CompileFor(lang, text, nil)
}

// CompileFor is Compile with operands ordered by stats, usually the
// snapshot the program will run on. The program stays correct on any
// snapshot; only its speed depends on the statistics.
func CompileFor(lang Lang, text string, stats Stats) (*vm.Program, error) {
	n, err := parse(lang, text)
	if err != nil {
		return nil, err
	}
	return CompileAST(n, stats)
}

// parse runs lang's front end.
func parse(lang Lang, text string) (ast.Node, error) {
	var (
		n   ast.Node
		err error
	)
	switch lang {
	case Slurm:
		n, err = slurm.Parse(text)
	case Flux:
		n, err = flux.ParseRFC31([]byte(text))
	case Requires:
		n, err = flux.ParseRequires(text)
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownLang, string(lang))
	}
	if err != nil {
		return nil, fmt.Errorf("compiler: %s: %w", lang, err)
	}
	return n, nil
}
