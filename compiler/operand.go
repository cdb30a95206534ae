package compiler

import (
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/index"
)

// operand converts a Slurm request value for every node type ahead of time,
// so that nothing is parsed while a program runs.
func operand(value string) index.Operand {
	num, ok := ast.SlurmNumber(value)
	return index.Operand{Raw: value, Num: num, NumOK: ok, Bool: ast.SlurmBool(value)}
}
