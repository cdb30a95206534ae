package inventory

// natCompare orders strings as Slurm's strnatcmp (Martin Pool's natural
// order) does: runs of digits compare by value ("n9" < "n10"), runs with a
// leading zero compare digit by digit as fractions, and leading whitespace
// of each segment is skipped. slurmctld sorts its node table this way.
func natCompare(a, b string) int {
	ai, bi := 0, 0
	for {
		ca, cb := byteAt(a, ai), byteAt(b, bi)
		for isSpace(ca) {
			ai++
			ca = byteAt(a, ai)
		}
		for isSpace(cb) {
			bi++
			cb = byteAt(b, bi)
		}
		if isDigit(ca) && isDigit(cb) {
			var r int
			if ca == '0' || cb == '0' {
				r = compareLeft(a[ai:], b[bi:])
			} else {
				r = compareRight(a[ai:], b[bi:])
			}
			if r != 0 {
				return r
			}
		}
		if ca == 0 && cb == 0 {
			return 0
		}
		if ca < cb {
			return -1
		}
		if ca > cb {
			return 1
		}
		ai++
		bi++
	}
}

// compareRight compares two digit runs by magnitude: the longer run wins;
// for equal lengths the first differing digit decides.
func compareRight(a, b string) int {
	bias := 0
	for i := 0; ; i++ {
		ca, cb := byteAt(a, i), byteAt(b, i)
		da, db := isDigit(ca), isDigit(cb)
		switch {
		case !da && !db:
			return bias
		case !da:
			return -1
		case !db:
			return 1
		case ca < cb:
			if bias == 0 {
				bias = -1
			}
		case ca > cb:
			if bias == 0 {
				bias = 1
			}
		}
	}
}

// compareLeft compares two digit runs as fractions: the first differing
// digit decides.
func compareLeft(a, b string) int {
	for i := 0; ; i++ {
		ca, cb := byteAt(a, i), byteAt(b, i)
		da, db := isDigit(ca), isDigit(cb)
		switch {
		case !da && !db:
			return 0
		case !da:
			return -1
		case !db:
			return 1
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
	}
}

// byteAt returns s[i], or 0 past the end, as C's NUL terminator would.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
