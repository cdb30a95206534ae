package hostlist

import (
	"math/bits"
	"strings"
)

// Query selects host names without expanding a hostlist, with the meaning
// of index.HostQuery: either exactly Name (when Exact), or Alpha followed by
// exactly Digits decimal digits (leading zeros included) whose value lies in
// [Lo, Hi], where Alpha is the name with its maximal run of trailing digits
// removed.
type Query struct {
	Exact  bool
	Name   string
	Alpha  string
	Digits int
	Lo, Hi uint64
}

// Match reports whether name satisfies q (the reference for index.HostQuery).
func (q *Query) Match(name string) bool {
	if q.Exact {
		return name == q.Name
	}
	alpha, digits := splitHost(name)
	if alpha != q.Alpha || len(digits) != q.Digits || q.Digits == 0 {
		return false
	}
	v, overflow := parseDigits(digits)
	return !overflow && v >= q.Lo && v <= q.Hi
}

// fluxMaxDigits is the longest run of trailing digits hostlist_find can
// match against a range whose prefix ends in digits.
const fluxMaxDigits = 10

// Queries returns the membership set of the list as queries: a name is
// matched by some query iff Find(name) >= 0 (Flux), or iff the name is in
// the expansion (Slurm; see Find for the extras Slurm's lookup adds). A
// numbered range yields at most one query per digit count, so the cost is
// independent of the range's length.
func (l *List) Queries() []Query {
	var qs []Query
	for i := range l.ranges {
		r := &l.ranges[i]
		if l.dialect == Flux && strings.ContainsAny(r.prefix, ",[]\t ") {
			continue // hostlist_find refuses every name holding these
		}
		if r.single {
			qs = append(qs, Query{Exact: true, Name: r.prefix})
			continue
		}
		qs = l.rangeQueries(qs, r)
	}
	return qs
}

// digitCount returns the number of decimal digits of n.
func digitCount(n uint64) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// rangeQueries appends the queries for the names prefix+pad(n, width),
// n in [lo, hi], grouped by the length of pad(n, width): numbers of at most
// width digits all print with width digits, longer ones with their own
// length. Digits ending the prefix join the name's digit run, so they are
// folded into the value.
func (l *List) rangeQueries(qs []Query, r *hostRange) []Query {
	alpha, pdigits := splitHost(r.prefix)
	t := len(pdigits)
	tv, tOverflow := parseDigits(pdigits)
	emit := func(length int, lo, hi uint64) {
		if t > 0 && l.dialect == Flux && t+length > fluxMaxDigits {
			return
		}
		vlo, vhi, ok := lo, hi, true
		if t > 0 {
			vlo, vhi, ok = foldPrefix(tv, tOverflow, length, lo, hi)
		}
		if ok {
			qs = append(qs, Query{Alpha: alpha, Digits: t + length, Lo: vlo, Hi: vhi})
			return
		}
		// Too long for 64-bit values (Slurm only, at most SlurmMaxRange
		// names): list the names themselves.
		for n := lo; ; n++ {
			qs = append(qs, Query{Exact: true, Name: r.prefix + pad(n, r.width)})
			if n == hi {
				break
			}
		}
	}
	dlo, dhi := digitCount(r.lo), digitCount(r.hi)
	if dlo <= r.width {
		hi := r.hi
		if r.width < 20 {
			hi = min(hi, pow10[r.width]-1)
		}
		emit(r.width, r.lo, hi)
	}
	for d := max(dlo, r.width+1); d <= dhi; d++ {
		lo, hi := max(r.lo, pow10[d-1]), r.hi
		if d < 20 {
			hi = min(hi, pow10[d]-1)
		}
		emit(d, lo, hi)
	}
	return qs
}

// foldPrefix returns tv*10^length + [lo, hi], or false on overflow.
func foldPrefix(tv uint64, tOverflow bool, length int, lo, hi uint64) (uint64, uint64, bool) {
	if tv == 0 && !tOverflow {
		return lo, hi, true
	}
	if tOverflow || length >= 20 {
		return 0, 0, false
	}
	h, base := bits.Mul64(tv, pow10[length])
	if h != 0 {
		return 0, 0, false
	}
	vlo, c1 := bits.Add64(base, lo, 0)
	vhi, c2 := bits.Add64(base, hi, 0)
	if c1 != 0 || c2 != 0 {
		return 0, 0, false
	}
	return vlo, vhi, true
}
