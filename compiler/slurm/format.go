package slurm

import (
	"strings"

	"github.com/nodesift/sift/compiler/ast"
)

// Format prints n as a normalized Slurm constraint: "&" for and, "|" for or,
// keys and values verbatim, and parentheses exactly around nested levels. A
// tree Parse produced prints to text that parses back to the same tree
// (positions aside). Nodes Slurm cannot express (Not, Const, Property,
// Hostlist, Ranks, empty And/Or) print as "!" and their ast.Dump in
// brackets, such as "![true]": a leaf with an empty key, which Parse rejects.
func Format(n ast.Node) string {
	var b strings.Builder
	format(&b, n, false)
	return b.String()
}

func format(b *strings.Builder, n ast.Node, nested bool) {
	switch n := n.(type) {
	case *ast.Compare:
		b.WriteString(n.Key)
		b.WriteString(n.Op.String())
		b.WriteString(n.Value)
	case *ast.And:
		level(b, n.X, '&', nested)
	case *ast.Or:
		level(b, n.X, '|', nested)
	default:
		b.WriteString("![")
		b.WriteString(ast.Dump(n))
		b.WriteByte(']')
	}
}

func level(b *strings.Builder, xs []ast.Node, op byte, nested bool) {
	if len(xs) == 1 {
		format(b, xs[0], nested)
		return
	}
	if len(xs) == 0 {
		b.WriteString("![")
		if op == '&' {
			b.WriteString("and()")
		} else {
			b.WriteString("or()")
		}
		b.WriteByte(']')
		return
	}
	if nested {
		b.WriteByte('(')
	}
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(op)
		}
		format(b, x, true)
	}
	if nested {
		b.WriteByte(')')
	}
}
