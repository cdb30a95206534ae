package index

import "sort"

// recentMax is how many entries an overlay's recent list holds before it is
// merged into the shared list: updates copy at most this many pointers, and
// merging costs one pass over the shared list every recentMax updates.
const recentMax = 32

// ovEntry is one changed node's whole state; n is nil when it was removed.
type ovEntry struct {
	id  uint32
	n   *Node
	has bool
	kv  extraKV
}

// overlay lists the nodes changed since a snapshot's columns were built.
// Both lists are sorted by id and never modified once published; an entry in
// recent supersedes one for the same id in old.
type overlay struct {
	old    []*ovEntry
	recent []*ovEntry
}

// size counts entries, superseded ones included: it bounds leaf patch cost.
func (o *overlay) size() int { return len(o.old) + len(o.recent) }

func find(list []*ovEntry, id uint32) int {
	return sort.Search(len(list), func(i int) bool { return list[i].id >= id })
}

func lookup(list []*ovEntry, id uint32) *ovEntry {
	if i := find(list, id); i < len(list) && list[i].id == id {
		return list[i]
	}
	return nil
}

// get returns the newest entry of id, or nil.
func (o *overlay) get(id uint32) *ovEntry {
	if e := lookup(o.recent, id); e != nil {
		return e
	}
	return lookup(o.old, id)
}

// with returns the overlay plus e, which supersedes any entry of its id.
func (o *overlay) with(e *ovEntry) overlay {
	recent := insert(o.recent, e)
	if len(recent) < recentMax {
		return overlay{old: o.old, recent: recent}
	}
	return overlay{old: merge(o.old, recent)}
}

// insert returns a copy of list with e in place of any entry of its id.
func insert(list []*ovEntry, e *ovEntry) []*ovEntry {
	i := find(list, e.id)
	out := make([]*ovEntry, 0, len(list)+1)
	out = append(out, list[:i]...)
	out = append(out, e)
	if i < len(list) && list[i].id == e.id {
		i++
	}
	return append(out, list[i:]...)
}

// merge returns old and recent as one sorted list, recent winning.
func merge(old, recent []*ovEntry) []*ovEntry {
	out := make([]*ovEntry, 0, len(old)+len(recent))
	i, j := 0, 0
	for i < len(old) || j < len(recent) {
		switch {
		case j == len(recent) || (i < len(old) && old[i].id < recent[j].id):
			out = append(out, old[i])
			i++
		case i == len(old) || recent[j].id < old[i].id:
			out = append(out, recent[j])
			j++
		default:
			out = append(out, recent[j])
			i, j = i+1, j+1
		}
	}
	return out
}

// latest returns the newest entry of every changed id, sorted by id.
func (o *overlay) latest() []*ovEntry { return merge(o.old, o.recent) }
