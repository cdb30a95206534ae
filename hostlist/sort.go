package hostlist

import "fmt"

// cmp is the dialect's hostrange_cmp: prefix order, then (when the widths
// are compatible) ascending lo, else ascending width. The lo difference is
// truncated to a C int, as in both libraries. Like the C code, it may copy
// one range's width over the other's (see widthEquiv).
func (l *List) cmp(a, b *hostRange) int {
	c := l.prefixCmp(a, b)
	if c != 0 {
		return c
	}
	if widthEquiv(a.lo, &a.width, b.lo, &b.width) {
		return int(int32(a.lo - b.lo))
	}
	return a.width - b.width
}

// msort sorts with glibc qsort's algorithm (a stable top-down merge sort),
// so that ties and the comparison's non-transitive corners resolve exactly
// as they do in C.
func msort(b []*hostRange, tmp []*hostRange, cmp func(a, b *hostRange) int) {
	n := len(b)
	if n <= 1 {
		return
	}
	n1 := n / 2
	msort(b[:n1], tmp, cmp)
	msort(b[n1:], tmp, cmp)
	b1, b2 := b[:n1], b[n1:]
	t := tmp[:0]
	for len(b1) > 0 && len(b2) > 0 {
		if cmp(b1[0], b2[0]) <= 0 {
			t = append(t, b1[0])
			b1 = b1[1:]
		} else {
			t = append(t, b2[0])
			b2 = b2[1:]
		}
	}
	t = append(t, b1...)
	copy(b, t)
}

// node is a range in the doubly linked list Sort works on, so that the
// C code's insertions and deletions cost O(1) each.
type node struct {
	hostRange
	prev, next *node
}

// sortedList returns copies of the ranges in hostlist_sort order, linked.
func (l *List) sortedList() (head, tail *node) {
	nodes := make([]node, len(l.ranges))
	ps := make([]*hostRange, len(l.ranges))
	for i := range l.ranges {
		nodes[i].hostRange = l.ranges[i]
		ps[i] = &nodes[i].hostRange
	}
	msort(ps, make([]*hostRange, 0, len(ps)), l.cmp)
	byRange := make(map[*hostRange]*node, len(nodes))
	for i := range nodes {
		byRange[&nodes[i].hostRange] = &nodes[i]
	}
	for _, p := range ps {
		n := byRange[p]
		if tail == nil {
			head = n
		} else {
			tail.next, n.prev = n, tail
		}
		tail = n
	}
	return head, tail
}

func (l *List) setList(head *node) {
	out := l.ranges[:0]
	for n := head; n != nil; n = n.next {
		out = append(out, n.hostRange)
	}
	l.ranges = out
}

// Sort orders the list as hostlist_sort does: by prefix (byte order for
// Flux, natural order for Slurm), single hosts first, then by number; then
// it coalesces overlapping and adjacent ranges but keeps duplicates
// (n[1,1] stays). It fails with ErrTooLarge, leaving the list unchanged,
// when splitting the overlaps would need more than MaxRanges ranges.
func (l *List) Sort() error {
	if len(l.ranges) <= 1 {
		return nil
	}
	head, tail := l.sortedList()
	if err := l.coalesce(tail, len(l.ranges)); err != nil {
		return err
	}
	l.collapse(tail)
	for head.prev != nil {
		head = head.prev
	}
	l.setList(head)
	return nil
}

// intersect is hostrange_intersect: the hosts common to neighbours a <= b.
func (l *List) intersect(a, b *hostRange) (lo, hi uint64, width int, ok bool) {
	if a.single || b.single || a.hi <= b.lo || l.prefixCmp(a, b) != 0 ||
		!widthEquiv(a.lo, &a.width, b.lo, &b.width) {
		return 0, 0, 0, false
	}
	return b.lo, min(a.hi, b.hi), a.width, true
}

// coalesce is hostlist_coalesce: every overlap of neighbours is split so
// that each duplicated number appears as its own range. The C code rescans
// from the end after each split; the only pair a split can newly make
// overlap is the one after it, so this checks that pair and then resumes
// the backward scan, which visits pairs in the same order.
func (l *List) coalesce(tail *node, n int) error {
	for cur := tail; cur != nil && cur.prev != nil; cur = cur.prev {
		for a := cur.prev; ; {
			b := a.next
			if b == nil {
				break
			}
			ok, err := l.split(a, b, &n)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			a = b
		}
	}
	return nil
}

// split splits the overlap of a and its successor b, if any, inserting
// the duplicated numbers between them as the C code does; n counts ranges.
func (l *List) split(a, b *node, n *int) (bool, error) {
	lo, hi, width, ok := l.intersect(&a.hostRange, &b.hostRange)
	if !ok {
		return false, nil
	}
	if hi < a.hi {
		b.hi = a.hi
	}
	a.hi = lo
	b.lo = hi
	at, added := a, 0
	insert := func(x uint64) {
		m := &node{hostRange: hostRange{prefix: a.prefix, lo: x, hi: x, width: width}}
		m.prev, m.next = at, at.next
		at.next.prev = m
		at.next = m
		at = m
		added++
	}
	for x := lo; ; x++ {
		if *n+added+2 > MaxRanges {
			return false, fmt.Errorf("%w: sorting needs more than %d ranges", ErrTooLarge, MaxRanges)
		}
		if x > a.hi {
			insert(x)
		}
		if x < b.lo {
			insert(x)
		}
		if x == hi {
			break
		}
	}
	*n += added
	return true, nil
}

// collapse is hostlist_collapse: merge adjacent ranges (prev.hi+1 == lo),
// scanning from the end.
func (l *List) collapse(tail *node) {
	for cur := tail; cur != nil && cur.prev != nil; cur = cur.prev {
		p := cur.prev
		if !p.single && !cur.single && p.hi != ^uint64(0) && p.hi == cur.lo-1 &&
			l.prefixCmp(&p.hostRange, &cur.hostRange) == 0 &&
			widthEquiv(p.lo, &p.width, cur.lo, &cur.width) {
			p.hi = cur.hi
			p.next = cur.next
			if cur.next != nil {
				cur.next.prev = p
			}
		}
	}
}

// Uniq sorts the list as Sort does and removes duplicate hosts
// (hostlist_uniq): overlapping or adjacent ranges join into one.
func (l *List) Uniq() {
	if len(l.ranges) <= 1 {
		return
	}
	head, _ := l.sortedList()
	out := make([]hostRange, 0, len(l.ranges))
	for n := head; n != nil; n = n.next {
		if len(out) > 0 && l.join(&out[len(out)-1], &n.hostRange) {
			continue
		}
		out = append(out, n.hostRange)
	}
	l.ranges = out
}

// join is hostrange_join: whether b was absorbed into a (a <= b).
func (l *List) join(a, b *hostRange) bool {
	if l.prefixCmp(a, b) != 0 || !widthEquiv(a.lo, &a.width, b.lo, &b.width) {
		return false
	}
	switch {
	case a.single && b.single:
		return true
	case a.hi != ^uint64(0) && a.hi == b.lo-1:
		a.hi = b.hi
		return true
	case a.hi >= b.lo:
		if a.hi < b.hi {
			a.hi = b.hi
		}
		return true
	}
	return false
}
