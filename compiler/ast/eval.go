package ast

import "github.com/nodesift/sift/extra"

// Facts is what the reference evaluator knows about one node.
type Facts struct {
	// Name is the node's hostname.
	Name string
	// Rank is the node's Flux rank.
	Rank uint32
	// HasExtra is true when the node has parsed Slurm extra data; without it
	// every Compare leaf is false.
	HasExtra bool
	// Extra is the node's extra data typed by ParseExtra.
	Extra map[string]extra.Value
	// Properties are the node's features (Slurm) or properties (Flux).
	Properties []string
}

// Eval reports whether the node described by f satisfies n. It is the
// reference evaluator: a plain walk of the tree, one node at a time.
func Eval(n Node, f *Facts) bool {
	switch n := n.(type) {
	case *And:
		for _, x := range n.X {
			if !Eval(x, f) {
				return false
			}
		}
		return true
	case *Or:
		for _, x := range n.X {
			if Eval(x, f) {
				return true
			}
		}
		return false
	case *Not:
		return !Eval(n.X, f)
	case *Const:
		return n.Value
	case *Compare:
		if !f.HasExtra {
			return false
		}
		// A missing key is the zero Value, KindMissing: false for every op.
		return Match(f.Extra[n.Key], n.Op, n.Value)
	case *Property:
		if n.Name == f.Name {
			return true
		}
		for _, p := range f.Properties {
			if p == n.Name {
				return true
			}
		}
		return false
	case *Ranks:
		for _, r := range n.Ranges {
			if r.Lo <= f.Rank && f.Rank <= r.Hi {
				return true
			}
		}
		return false
	case *Hostlist:
		return inHostlist(n, f.Name)
	}
	return false
}
