package hostlist

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nodesift/sift/position"
)

// Dialect selects whose hostlist rules apply.
type Dialect int

const (
	// Flux follows flux-core's libhostlist (RFC 29).
	Flux Dialect = iota + 1
	// Slurm follows Slurm's src/common/hostlist.c.
	Slurm
)

// String returns the dialect's name as the CLI spells it.
func (d Dialect) String() string {
	switch d {
	case Flux:
		return "flux"
	case Slurm:
		return "slurm"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// ParseDialect maps "flux" or "slurm" to a Dialect.
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "flux":
		return Flux, nil
	case "slurm":
		return Slurm, nil
	}
	return 0, fmt.Errorf("unknown hostlist dialect %q (want flux or slurm)", s)
}

// Limits of the two implementations, and sift's own bound on stored ranges.
const (
	FluxMaxRange      = 1 << 20    // hosts in one lo-hi element (libhostlist MAX_RANGE)
	FluxMaxElements   = 10240      // elements in one bracket (libhostlist MAX_RANGES)
	SlurmMaxRange     = 65536      // hosts in one lo-hi element (MAX_RANGE)
	SlurmMaxElements  = 256 * 1024 // elements in one bracket (MAX_RANGES; fatal() in Slurm)
	SlurmMaxPrefixCnt = 64 * 1024  // hosts of one prefix bracket level (MAX_PREFIX_CNT)
	MaxRanges         = 1 << 20    // ranges one List may hold (sift's bound)
	fluxTokenMax      = 1023       // libhostlist copies a plain host token into a 1024-byte buffer
)

// ErrInvalid and ErrRange classify parse errors as the C libraries' errno
// does (EINVAL, ERANGE); ErrTooLarge is returned when an operation would
// exceed a size limit of sift's. Test for them with errors.Is.
var (
	ErrInvalid  = errors.New("invalid hostlist")
	ErrRange    = errors.New("hostlist range too large")
	ErrTooLarge = errors.New("hostlist too large")
)

// Error is a parse error at byte Offset of the input.
type Error struct {
	position.Pos
	Msg string
	Err error // ErrInvalid, ErrRange or ErrTooLarge
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid hostlist at byte %d: %s", e.Offset, e.Msg)
}

// Unwrap returns the error class.
func (e *Error) Unwrap() error { return e.Err }

// hostRange is one stored element: either the single opaque host prefix, or
// prefix followed by each number in [lo, hi] zero-padded to width.
type hostRange struct {
	prefix string
	lo, hi uint64
	width  int
	single bool
}

func (r *hostRange) count() uint64 {
	if r.single {
		return 1
	}
	return r.hi - r.lo + 1
}

// pad formats n as printf's "%0*lu" with width w.
func pad(n uint64, w int) string {
	s := strconv.FormatUint(n, 10)
	if len(s) >= w {
		return s
	}
	return strings.Repeat("0", w-len(s)) + s
}

// List is a parsed hostlist: ordered, duplicates kept.
type List struct {
	dialect Dialect
	ranges  []hostRange
}

// Dialect returns the dialect the list was parsed with.
func (l *List) Dialect() Dialect { return l.dialect }

// Count returns the number of hosts, duplicates included, without expanding.
func (l *List) Count() int {
	var n uint64
	for i := range l.ranges {
		n += l.ranges[i].count()
	}
	return int(n)
}

// Expand returns every host in list order. It fails with ErrTooLarge,
// allocating nothing, when the list holds more than max hosts.
func (l *List) Expand(max int) ([]string, error) {
	n := l.Count()
	if n > max || n < 0 {
		return nil, fmt.Errorf("%w: %d hosts exceed the limit of %d", ErrTooLarge, n, max)
	}
	out := make([]string, 0, n)
	l.Each(func(h string) bool { out = append(out, h); return true })
	return out, nil
}

// Each calls fn with every host in list order until fn returns false,
// without materializing the list.
func (l *List) Each(fn func(host string) bool) {
	for i := range l.ranges {
		r := &l.ranges[i]
		if r.single {
			if !fn(r.prefix) {
				return
			}
			continue
		}
		for n := r.lo; ; n++ {
			if !fn(r.prefix + pad(n, r.width)) {
				return
			}
			if n == r.hi {
				break
			}
		}
	}
}

// String returns the compressed form, as hostlist_encode (Flux) or
// hostlist_ranged_string (Slurm, `scontrol show hostlist`) prints it: list
// order and duplicates kept, neighbouring numbered ranges of one prefix
// sharing a bracket.
func (l *List) String() string {
	var b strings.Builder
	rs := l.ranges
	for i := 0; i < len(rs); {
		if i > 0 {
			b.WriteByte(',')
		}
		start := i
		bracket := rs[i].count() > 1 || (i+1 < len(rs) && l.withinRange(&rs[i], &rs[i+1]))
		b.WriteString(rs[i].prefix)
		if bracket {
			b.WriteByte('[')
		}
		for {
			if i > start {
				b.WriteByte(',')
			}
			if !rs[i].single {
				b.WriteString(pad(rs[i].lo, rs[i].width))
				if rs[i].lo < rs[i].hi {
					b.WriteByte('-')
					b.WriteString(pad(rs[i].hi, rs[i].width))
				}
			}
			i++
			if i >= len(rs) || !l.withinRange(&rs[i], &rs[i-1]) {
				break
			}
		}
		if bracket {
			b.WriteByte(']')
		}
	}
	return b.String()
}

// withinRange reports whether two ranges print inside one bracket.
func (l *List) withinRange(a, b *hostRange) bool {
	return l.prefixCmp(a, b) == 0 && !a.single && !b.single
}

// prefixCmp orders prefixes as the dialect's hostrange_prefix_cmp does:
// byte order, shorter first (Flux) or natural order (Slurm); then single
// hosts before numbered ranges.
func (l *List) prefixCmp(a, b *hostRange) int {
	var c int
	if l.dialect == Slurm {
		c = NaturalCompare(a.prefix, b.prefix)
	} else {
		c = strings.Compare(a.prefix, b.prefix)
	}
	if c != 0 {
		return c
	}
	return boolInt(b.single) - boolInt(a.single)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// zeroPadded returns how many zeros printing num with width adds.
func zeroPadded(num uint64, width int) int {
	n := 1
	for num /= 10; num != 0; num /= 10 {
		n++
	}
	if width > n {
		return width - n
	}
	return 0
}

// widthEquiv is util.c's width_equiv / hostlist.c's _width_equiv: whether
// numbers n and m printed with widths *wn and *wm may share one range; on
// success the width that changes nothing is copied over the other.
func widthEquiv(n uint64, wn *int, m uint64, wm *int) bool {
	if *wn == *wm {
		return true
	}
	npad, nmpad := zeroPadded(n, *wn), zeroPadded(n, *wm)
	mpad, mnpad := zeroPadded(m, *wm), zeroPadded(m, *wn)
	switch {
	case npad != nmpad && mpad != mnpad:
		return false
	case npad != nmpad:
		*wm = *wn
	default:
		*wn = *wm
	}
	return true
}

// push appends r, merging it into the tail as hostlist_append_range /
// hostlist_push_range do: same prefix, tail.hi+1 == r.lo, compatible widths.
func (l *List) push(r hostRange) error {
	if n := len(l.ranges); n > 0 {
		t := &l.ranges[n-1]
		if !t.single && !r.single && t.hi != ^uint64(0) && t.hi == r.lo-1 &&
			l.prefixCmp(t, &r) == 0 && widthEquiv(t.lo, &t.width, r.lo, &r.width) {
			t.hi = r.hi
			return nil
		}
	}
	if len(l.ranges) >= MaxRanges {
		return ErrTooLarge
	}
	l.ranges = append(l.ranges, r)
	return nil
}

// pushHost appends one host name split into prefix and trailing digits.
// ok is false when Flux would drop it (trailing number overflows 64 bits).
func (l *List) pushHost(name string) (ok bool, err error) {
	alpha, digits := splitHost(name)
	if digits == "" {
		return true, l.push(hostRange{prefix: name, single: true})
	}
	n, overflow := parseDigits(digits)
	if overflow && l.dialect == Flux {
		return false, nil
	}
	return true, l.push(hostRange{prefix: alpha, lo: n, hi: n, width: len(digits)})
}

// splitHost splits name into its alpha part and maximal trailing digits.
func splitHost(name string) (alpha, digits string) {
	i := len(name)
	for i > 0 && isDigit(name[i-1]) {
		i--
	}
	return name[:i], name[i:]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseDigits reads an all-digit string, saturating at 2^64-1.
func parseDigits(s string) (n uint64, overflow bool) {
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if n > (^uint64(0)-d)/10 {
			return ^uint64(0), true
		}
		n = n*10 + d
	}
	return n, false
}

// strtoul mimics glibc strtoul(s, &end, 10): leading isspace, an optional
// sign, digits; saturates at 2^64-1; a minus sign negates modulo 2^64.
// consumed is the length of the converted text, 0 when nothing converted.
func strtoul(s string) (n uint64, consumed int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	overflow := false
	for i < len(s) && isDigit(s[i]) {
		d := uint64(s[i] - '0')
		if !overflow {
			if n > (^uint64(0)-d)/10 {
				overflow = true
			} else {
				n = n*10 + d
			}
		}
		i++
	}
	if i == start {
		return 0, 0
	}
	if overflow {
		return ^uint64(0), i
	}
	if neg {
		n = -n
	}
	return n, i
}

// Compress returns the compressed form of names taken as single hosts in
// order (each split into prefix and trailing number and merged as the
// dialect appends hosts). Unlike libhostlist, a name whose trailing number
// overflows is kept, as an opaque host.
func Compress(dialect Dialect, names []string) string {
	l := &List{dialect: dialect}
	for _, n := range names {
		if n == "" {
			continue
		}
		ok, err := l.pushHost(n)
		if err != nil {
			break
		}
		if !ok {
			_ = l.push(hostRange{prefix: n, single: true})
		}
	}
	return l.String()
}

// Append adds the hosts of o to the end of l, merging o's first range into
// l's last one when they join (hostlist_append_list / hostlist_push_list).
// Both lists must use the same dialect. It fails with ErrTooLarge, leaving l
// unchanged, when the result would exceed MaxRanges ranges.
func (l *List) Append(o *List) error {
	if len(l.ranges)+len(o.ranges) > MaxRanges {
		return ErrTooLarge
	}
	for _, r := range o.ranges {
		if err := l.push(r); err != nil {
			return err
		}
	}
	return nil
}
