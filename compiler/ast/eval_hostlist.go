package ast

import (
	"sync/atomic"

	"github.com/nodesift/sift/hostlist"
)

// hostlistMemo remembers the decoded lists of the Hostlist node evaluated
// last, so that evaluating one tree over many nodes decodes its hostlists
// once. It keeps its node alive, so a pointer match is always the same node.
type hostlistMemo struct {
	n     *Hostlist
	lists []*hostlist.List
}

var lastHostlist atomic.Pointer[hostlistMemo]

// inHostlist reports whether name is in the union of n's RFC 29 hostlists,
// as flux-core's hostlist constraint decides: hostlist_find(name) >= 0 over
// the hostlist every string was appended to. Each string is decoded on its
// own, as hostlist_append does (joining them would change how a string such
// as `x[1]-[` is split); strings that do not decode are skipped (the front
// end has already refused them).
func inHostlist(n *Hostlist, name string) bool {
	m := lastHostlist.Load()
	if m == nil || m.n != n {
		m = &hostlistMemo{n: n}
		for _, e := range n.Exprs {
			if l, err := hostlist.Parse(hostlist.Flux, e); err == nil {
				m.lists = append(m.lists, l)
			}
		}
		lastHostlist.Store(m)
	}
	for _, l := range m.lists {
		if l.Find(name) >= 0 {
			return true
		}
	}
	return false
}
