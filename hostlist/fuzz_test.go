package hostlist

import (
	"slices"
	"strings"
	"testing"
)

// roundTrips reports whether the names survive Compress then Parse
// unchanged: names holding separators, brackets or blanks are printed
// literally by Compress but read differently by Parse, and Flux truncates
// plain names longer than 1023 bytes; a trailing number that overflows 64
// bits saturates (Slurm) or drops the name (Flux).
func roundTrips(names []string) bool {
	for _, n := range names {
		if len(n) > fluxTokenMax || strings.ContainsAny(n, ",[] \t\n\v\f\r") {
			return false
		}
		if _, digits := splitHost(n); digits != "" {
			if _, overflow := parseDigits(digits); overflow {
				return false
			}
		}
	}
	return true
}

func FuzzHostlistParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, slurm bool) {
		d := Flux
		if slurm {
			d = Slurm
		}
		l, err := Parse(d, s)
		if err != nil {
			return
		}
		_ = l.String()
		hosts, err := l.Expand(5000)
		if err != nil {
			return
		}
		if l.Count() != len(hosts) {
			t.Fatalf("Count %d, expanded %d", l.Count(), len(hosts))
		}
		qs := l.Queries()
		for i, h := range hosts {
			if i > 200 {
				break
			}
			got := l.Find(h)
			matched := slices.ContainsFunc(qs, func(q Query) bool { return q.Match(h) })
			// Slurm's index is a C int that can wrap negative: only -1
			// means not found. A single host whose trailing number is 2^31
			// or more has an index Slurm computes from that number, which
			// can wrap to -1 itself ("20000000000000000000" saturates
			// strtoul to 2^64-1), so only the query match is checked there.
			alpha, digits := splitHost(h)
			trailing, _ := strtoul(h[len(alpha):])
			wraps := digits != "" && trailing >= 1<<31
			if d == Slurm && (!matched || (got == -1 && !wraps)) {
				t.Fatalf("%q: host %q of the expansion: Find %d, query match %v", s, h, got, matched)
			}
			if d == Flux && (got >= 0) != matched {
				t.Fatalf("%q: host %q: Find %d but query match %v", s, h, got, matched)
			}
		}
		if !roundTrips(hosts) {
			return
		}
		c := Compress(d, hosts)
		back, err := Parse(d, c)
		if err != nil {
			t.Fatalf("%q: Compress gave %q which does not parse: %v", s, c, err)
		}
		again, err := back.Expand(5000)
		if err != nil || !slices.Equal(again, hosts) {
			t.Fatalf("%q: Parse(Compress(Expand)) = %q expands to %q, want %q", s, c, again, hosts)
		}
		_ = l.Sort()
		l.Uniq()
	})
}
