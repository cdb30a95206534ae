package inventory

import (
	"errors"
	"fmt"
)

// Defaults of Limits.
const (
	// DefaultMaxNodes is twice the largest inventory sift is measured with
	// (a million nodes), and far above any real cluster's node count.
	DefaultMaxNodes = 2_097_152
	// DefaultMaxFeatures bounds a node's features and its extra data's
	// keys. Real nodes carry tens; each distinct one becomes an index
	// column, so a node with a million would cost gigabytes.
	DefaultMaxFeatures = 4096
)

// ErrLimit marks an inventory refused because it would exceed a Limits
// bound; test for it with errors.Is.
var ErrLimit = errors.New("over the limit")

// Limits bound what reading an inventory may make. Each is checked before
// the memory it guards is allocated, from counts (a hostlist's or idset's
// size is computed, not expanded).
type Limits struct {
	// MaxNodes bounds the nodes of the whole inventory, across every line
	// and included file.
	MaxNodes int
	// MaxFeatures bounds one node's features (Slurm features, Flux
	// properties) and, separately, the top-level keys of its extra data.
	MaxFeatures int
}

// DefaultLimits returns the limits sift applies unless told otherwise.
func DefaultLimits() Limits {
	return Limits{MaxNodes: DefaultMaxNodes, MaxFeatures: DefaultMaxFeatures}
}

// orDefault fills unset bounds with their defaults.
func (l Limits) orDefault() Limits {
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxFeatures <= 0 {
		l.MaxFeatures = DefaultMaxFeatures
	}
	return l
}

// limitError is a bound of Limits that an inventory would exceed; it
// matches ErrLimit.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// Is reports whether target is ErrLimit.
func (e *limitError) Is(target error) bool { return target == ErrLimit }

// nodeBudget counts the nodes an inventory has made so far against
// Limits.MaxNodes.
type nodeBudget struct {
	max, used int
}

// take reserves n more nodes, or fails with what the inventory would have
// made; the caller adds the file and line.
func (b *nodeBudget) take(n int) error {
	if n < 0 || n > b.max-b.used {
		so := ""
		if b.used > 0 {
			so = fmt.Sprintf(" (%d before it)", b.used)
		}
		return &limitError{fmt.Sprintf("would make %d nodes%s, more than the limit of %d (--max-nodes)", b.used+n, so, b.max)}
	}
	b.used += n
	return nil
}

// tooMany reports a list of n features (or extra keys: what) on one node
// over the limit max.
func tooMany(n int, what string, max int) error {
	return &limitError{fmt.Sprintf("%d %s on one node, more than the limit of %d (--max-features)", n, what, max)}
}

// countList counts the items splitList would make of s, without splitting.
func countList(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			n++
		}
	}
	return n
}

// maxScanDepth is as deep as largestContainer looks; the JSON readers
// refuse deeper documents anyway (fastjson's limit is 300).
const maxScanDepth = 320

// largestContainer returns the most items (array elements or object
// members) that any JSON array or object in raw holds at depth minDepth or
// deeper, raw's own value being depth 1, and the offset where that container
// starts. It reads raw once, allocates nothing and does not validate: it is
// the guard that runs before a JSON parser builds a value per item.
func largestContainer(raw []byte, minDepth int) (items, at int) {
	var commas [maxScanDepth]int
	var starts [maxScanDepth]int
	var nonEmpty [maxScanDepth]bool
	depth := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth > 0 && depth <= maxScanDepth {
				nonEmpty[depth-1] = true
			}
			depth++
			if depth <= maxScanDepth {
				commas[depth-1], starts[depth-1], nonEmpty[depth-1] = 0, i, false
			}
			continue
		case '}', ']':
			if depth >= minDepth && depth <= maxScanDepth && nonEmpty[depth-1] {
				if n := commas[depth-1] + 1; n > items {
					items, at = n, starts[depth-1]
				}
			}
			if depth > 0 {
				depth--
			}
			continue
		case ',':
			if depth > 0 && depth <= maxScanDepth {
				commas[depth-1]++
			}
			continue
		}
		if depth > 0 && depth <= maxScanDepth {
			nonEmpty[depth-1] = true
		}
	}
	return items, at
}

// topLevelKeys counts the members of the JSON object raw holds (0 when raw
// is not one), as largestContainer reads it.
func topLevelKeys(raw []byte) int {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	if i >= len(raw) || raw[i] != '{' {
		return 0
	}
	var commas, depth int
	nonEmpty := false
	for ; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			nonEmpty = true
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				if !nonEmpty {
					return 0
				}
				return commas + 1
			}
		case c == ',' && depth == 1:
			commas++
		}
	}
	return commas + 1
}
