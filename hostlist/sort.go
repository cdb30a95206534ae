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

// sorted returns pointers to copies of the ranges in hostlist_sort order.
func (l *List) sorted() []*hostRange {
	ps := make([]*hostRange, len(l.ranges))
	for i := range l.ranges {
		r := l.ranges[i]
		ps[i] = &r
	}
	msort(ps, make([]*hostRange, 0, len(ps)), l.cmp)
	return ps
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
	ps := l.sorted()
	ps, err := l.coalesce(ps)
	if err != nil {
		return err
	}
	ps = l.collapse(ps)
	l.setRanges(ps)
	return nil
}

func (l *List) setRanges(ps []*hostRange) {
	out := make([]hostRange, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	l.ranges = out
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
// that each duplicated number appears as its own range, scanning again from
// the end after each change.
func (l *List) coalesce(ps []*hostRange) ([]*hostRange, error) {
	for i := len(ps) - 1; i > 0; i-- {
		prev, next := ps[i-1], ps[i]
		lo, hi, width, ok := l.intersect(prev, next)
		if !ok {
			continue
		}
		if hi < prev.hi {
			next.hi = prev.hi
		}
		prev.hi = lo
		next.lo = hi
		var ins []*hostRange
		for x := lo; ; x++ {
			if x > prev.hi {
				ins = append(ins, &hostRange{prefix: prev.prefix, lo: x, hi: x, width: width})
			}
			if x < next.lo {
				ins = append(ins, &hostRange{prefix: prev.prefix, lo: x, hi: x, width: width})
			}
			if len(ps)+len(ins) > MaxRanges {
				return nil, fmt.Errorf("%w: sorting needs more than %d ranges", ErrTooLarge, MaxRanges)
			}
			if x == hi {
				break
			}
		}
		if len(ins) > 0 {
			grown := make([]*hostRange, 0, len(ps)+len(ins))
			grown = append(grown, ps[:i]...)
			grown = append(grown, ins...)
			ps = append(grown, ps[i:]...)
		}
		i = len(ps)
	}
	return ps, nil
}

// collapse is hostlist_collapse: merge adjacent ranges (prev.hi+1 == lo).
func (l *List) collapse(ps []*hostRange) []*hostRange {
	for i := len(ps) - 1; i > 0; i-- {
		prev, next := ps[i-1], ps[i]
		if !prev.single && !next.single && prev.hi != ^uint64(0) && prev.hi == next.lo-1 &&
			l.prefixCmp(prev, next) == 0 && widthEquiv(prev.lo, &prev.width, next.lo, &next.width) {
			prev.hi = next.hi
			ps = append(ps[:i], ps[i+1:]...)
		}
	}
	return ps
}

// Uniq sorts the list as Sort does and removes duplicate hosts
// (hostlist_uniq): overlapping or adjacent ranges join into one.
func (l *List) Uniq() {
	if len(l.ranges) <= 1 {
		return
	}
	ps := l.sorted()
	for i := 1; i < len(ps); {
		if l.join(ps[i-1], ps[i]) {
			ps = append(ps[:i], ps[i+1:]...)
		} else {
			i++
		}
	}
	l.setRanges(ps)
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
