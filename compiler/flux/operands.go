package flux

import (
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/idset"
)

// decodeRanks decodes one `ranks` string as flux-core's idset_decode does
// (sift refuses ids of 2^32 and more instead of wrapping them).
func decodeRanks(s string) ([]ast.RankRange, bool) {
	set, err := idset.Decode(s)
	if err != nil {
		return nil, false
	}
	rs := set.Ranges()
	out := make([]ast.RankRange, len(rs))
	for i, r := range rs {
		out[i] = ast.RankRange{Lo: r.Lo, Hi: r.Hi}
	}
	return out, true
}

// validHostlist reports whether flux-core's hostlist decoder accepts s.
func validHostlist(s string) bool {
	_, err := hostlist.Parse(hostlist.Flux, s)
	return err == nil
}
