package ast

import (
	"strings"

	"github.com/nodesift/sift/extra"
)

// Node is one node of a constraint tree.
type Node interface {
	// Pos is the byte offset of the node's first byte in its source text,
	// or -1 when the node was synthesized.
	Pos() int
	node()
}

// And is true when every operand is true; an empty And is true.
type And struct {
	Start int
	X     []Node
}

// Or is true when any operand is true; an empty Or is false. (Flux's
// `{"or":[]}` is true: its front end emits Const{true} for it.)
type Or struct {
	Start int
	X     []Node
}

// Not negates its operand.
type Not struct {
	Start int
	X     Node
}

// Const is a constant truth value.
type Const struct {
	Start int
	Value bool
}

// Compare is a Slurm extra-constraint leaf: the node's extra data value under
// Key compared with the request Value. Key and Value are kept byte for byte as
// written, whitespace included.
type Compare struct {
	Start int
	End   int // just past the leaf's source text; unknown unless Start >= 0 and End > Start
	Key   string
	Op    extra.Op
	Value string
}

// Property is true when the node has the named property (a Flux property or
// a Slurm feature) or when its hostname equals Name, as in flux-core.
type Property struct {
	Start int
	End   int // just past the leaf's source text; unknown unless Start >= 0 and End > Start
	Name  string
}

// Hostlist is true when the node's hostname is in any of the hostlist
// expressions (Flux RFC 29 dialect). An empty list matches nothing.
type Hostlist struct {
	Start int
	End   int // just past the leaf's source text; unknown unless Start >= 0 and End > Start
	Exprs []string
}

// RankRange is an inclusive range of Flux ranks.
type RankRange struct{ Lo, Hi uint32 }

// Ranks is true when the node's rank is in one of the ranges. The ranges are
// the union of the request's idsets; an empty list matches nothing.
type Ranks struct {
	Start  int
	End    int // just past the leaf's source text; unknown unless Start >= 0 and End > Start
	Ranges []RankRange
}

func (n *And) Pos() int      { return n.Start }
func (n *Or) Pos() int       { return n.Start }
func (n *Not) Pos() int      { return n.Start }
func (n *Const) Pos() int    { return n.Start }
func (n *Compare) Pos() int  { return n.Start }
func (n *Property) Pos() int { return n.Start }
func (n *Hostlist) Pos() int { return n.Start }
func (n *Ranks) Pos() int    { return n.Start }

func (*And) node()      {}
func (*Or) node()       {}
func (*Not) node()      {}
func (*Const) node()    {}
func (*Compare) node()  {}
func (*Property) node() {}
func (*Hostlist) node() {}
func (*Ranks) node()    {}

// Dump returns a language-neutral, fully parenthesized rendering of n, for
// tests and debugging.
func Dump(n Node) string {
	var b strings.Builder
	dump(&b, n)
	return b.String()
}

func dump(b *strings.Builder, n Node) {
	list := func(name string, xs []Node) {
		b.WriteString(name)
		b.WriteByte('(')
		for i, x := range xs {
			if i > 0 {
				b.WriteByte(' ')
			}
			dump(b, x)
		}
		b.WriteByte(')')
	}
	switch n := n.(type) {
	case *And:
		list("and", n.X)
	case *Or:
		list("or", n.X)
	case *Not:
		list("not", []Node{n.X})
	case *Const:
		if n.Value {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case *Compare:
		b.WriteString("[")
		b.WriteString(strconvQuote(n.Key))
		b.WriteString(n.Op.String())
		b.WriteString(strconvQuote(n.Value))
		b.WriteString("]")
	case *Property:
		b.WriteString("prop:")
		b.WriteString(strconvQuote(n.Name))
	case *Hostlist:
		b.WriteString("hosts:")
		b.WriteString(strconvQuote(strings.Join(n.Exprs, " ")))
	case *Ranks:
		b.WriteString("ranks:")
		for i, r := range n.Ranges {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(uitoa(r.Lo))
			if r.Hi != r.Lo {
				b.WriteByte('-')
				b.WriteString(uitoa(r.Hi))
			}
		}
	default:
		b.WriteString("?")
	}
}
