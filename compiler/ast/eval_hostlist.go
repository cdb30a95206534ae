package ast

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/nodesift/sift/hostlist"
)

// hostlistMemo holds the decoded lists of one Hostlist node, so that
// evaluating a tree over many nodes decodes its hostlists once. It keeps its
// node alive, so a pointer match is always the same node.
type hostlistMemo struct {
	n     *Hostlist
	lists []*hostlist.List
}

// hostlistMemos is a small direct-mapped cache of memos by node pointer:
// bounded, lock-free, and enough for the few hostlist leaves of a tree.
var (
	hostlistMemos    [64]atomic.Pointer[hostlistMemo]
	hostlistMemoSeed = maphash.MakeSeed()
)

// inHostlist reports whether name is in the union of n's RFC 29 hostlists,
// as flux-core's hostlist constraint decides: hostlist_find(name) >= 0 over
// the hostlist every string was appended to. Each string is decoded on its
// own, as hostlist_append does (joining them would change how a string such
// as `x[1]-[` is split); strings that do not decode are skipped (the front
// end has already refused them).
func inHostlist(n *Hostlist, name string) bool {
	slot := &hostlistMemos[maphash.Comparable(hostlistMemoSeed, n)%uint64(len(hostlistMemos))]
	m := slot.Load()
	if m == nil || m.n != n {
		m = &hostlistMemo{n: n}
		for _, e := range n.Exprs {
			if l, err := hostlist.Parse(hostlist.Flux, e); err == nil {
				m.lists = append(m.lists, l)
			}
		}
		slot.Store(m)
	}
	for _, l := range m.lists {
		if l.Find(name) >= 0 {
			return true
		}
	}
	return false
}
