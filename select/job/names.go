package job

import (
	"fmt"
	"strconv"
	"strings"
)

// maxExpand bounds how many names a node list may expand to.
const maxExpand = 1 << 20

// expandNames expands a Slurm-style node list: comma-separated names, each
// possibly with one bracketed set of numeric ranges (n[1-3,7]). Widths are
// kept from the lower bound's zero padding.
func expandNames(list string) ([]string, error) {
	var out []string
	for _, item := range splitTop(list) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		lb := strings.IndexByte(item, '[')
		if lb < 0 {
			out = append(out, item)
			continue
		}
		rb := strings.IndexByte(item, ']')
		if rb < lb {
			return nil, fmt.Errorf("unbalanced brackets in %q", item)
		}
		prefix, suffix := item[:lb], item[rb+1:]
		for _, r := range strings.Split(item[lb+1:rb], ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.ParseUint(lo, 10, 64)
			b, err2 := strconv.ParseUint(hi, 10, 64)
			if err1 != nil || err2 != nil || b < a {
				return nil, fmt.Errorf("bad range %q in %q", r, item)
			}
			if b-a >= maxExpand || len(out)+int(b-a) >= maxExpand {
				return nil, fmt.Errorf("node list expands to more than %d names", maxExpand)
			}
			for v := a; v <= b; v++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), v, suffix))
			}
		}
	}
	return out, nil
}

// splitTop splits s at commas outside brackets.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
