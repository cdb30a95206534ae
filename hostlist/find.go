package hostlist

import "strings"

// pow10 holds 10^0 .. 10^19.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Find returns the index of the first host of the list equal to host, or
// -1, without expanding the list.
//
// Flux (hostlist_find): a numbered range matches a name with the same
// prefix, a number in range and a compatible zero-padding width, which is
// exactly membership in the expansion, except that for a prefix ending in
// digits (f00[7-8]) the name's trailing digits, prefix digits included, may
// be at most 10 long; single hosts match by exact comparison, and a name
// holding any of ",[]\t " matches nothing.
//
// Slurm (hostlist_find): as membership in the expansion, plus Slurm's
// lenient extras that Queries does not describe: the text after the range's
// prefix is read with strtoul (so "nodeX5" or "node+5" can match
// node[00-10], and a name equal to a digit-ending prefix matches a range
// starting at 0 of width 1), numbers of 2^31 and more are truncated to a C
// int for the width check, and for a single host the returned index is
// offset by the name's trailing number, as Slurm computes it. Slurm's index
// is a C int and wraps negative past 2^31-1, so in this dialect only -1
// means "not found".
func (l *List) Find(host string) int {
	if l.dialect == Slurm {
		return l.findSlurm(host)
	}
	return l.findFlux(host)
}

// fluxName is libhostlist's stack_hostname: the name split at lenPrefix,
// the number and digit count of the rest.
type fluxName struct {
	s         string
	lenPrefix int
	num       uint64
	width     int
	suffix    bool
}

func (l *List) findFlux(host string) int {
	if strings.ContainsAny(host, ",[]\t ") {
		return -1
	}
	alpha, digits := splitHost(host)
	hn := fluxName{s: host, lenPrefix: len(alpha)}
	if digits != "" {
		n, overflow := parseDigits(digits)
		if overflow {
			// See the package doc: sift does not saturate names.
			hn.lenPrefix = len(host)
		} else {
			hn.num, hn.width, hn.suffix = n, len(digits), true
		}
	}
	count := 0
	for i := range l.ranges {
		if off := fluxWithin(&l.ranges[i], hn); off >= 0 {
			return count + off
		}
		count += int(l.ranges[i].count())
	}
	return -1
}

// fluxWithin is hostrange_hn_within: the offset of hn in r, or -1.
func fluxWithin(r *hostRange, hn fluxName) int {
	if r.single {
		if r.prefix == hn.s {
			return 0
		}
		return -1
	}
	for {
		if !hn.suffix || len(r.prefix) < hn.lenPrefix || r.prefix[:hn.lenPrefix] != hn.s[:hn.lenPrefix] {
			return -1
		}
		// The retry for prefixes ending in digits (f00[1-2]): move one
		// digit of the name's number into its prefix and try again.
		if hn.lenPrefix < len(r.prefix) && hn.width > 1 && isDigit(r.prefix[len(r.prefix)-1]) &&
			r.prefix[hn.lenPrefix] == hn.s[hn.lenPrefix] {
			hn.lenPrefix++
			hn.width--
			if hn.width >= 10 {
				return -1
			}
			hn.num %= pow10[hn.width]
			continue
		}
		break
	}
	if hn.lenPrefix == len(r.prefix) && hn.num >= r.lo && hn.num <= r.hi {
		w := r.width
		if widthEquiv(r.lo, &w, hn.num, &hn.width) {
			return int(hn.num - r.lo)
		}
	}
	return -1
}

func (l *List) findSlurm(host string) int {
	alpha, digits := splitHost(host)
	suffix := digits != ""
	k := len(alpha) // hostname_t's prefix is host[:k]; it moves as ranges are tried
	num, _ := strtoul(host[k:])
	count := 0
	for i := range l.ranges {
		r := &l.ranges[i]
		if slurmWithin(r, host, suffix, &k, &num) {
			if suffix {
				return int(int32(uint64(count) + num - r.lo))
			}
			return count
		}
		count += int(r.count())
	}
	return -1
}

// slurmWithin is hostrange_hn_within with dims = 1, including its habit of
// moving the name's prefix/suffix split for the ranges that follow.
func slurmWithin(r *hostRange, host string, suffix bool, k *int, num *uint64) bool {
	if r.single {
		return host == r.prefix
	}
	if !suffix {
		return false
	}
	if host[:*k] != r.prefix {
		len1, len2 := len(r.prefix), *k
		if len1 == len2 {
			return false
		}
		if ldiff := len1 - len2; ldiff > 0 && len(host)-len2 < ldiff {
			return false
		}
		*k = len1
		*num, _ = strtoul(host[*k:])
		if host[:*k] != r.prefix {
			return false
		}
	}
	if *num > r.hi || *num < r.lo {
		return false
	}
	w, hw := r.width, len(host)-*k
	m := uint64(int64(int32(*num)))
	return widthEquiv(r.lo, &w, m, &hw)
}
