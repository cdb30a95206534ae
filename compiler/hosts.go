package compiler

import (
	"strings"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
)

// hostQueries turns RFC 29 hostlist expressions into index host queries
// that decide membership without expanding the lists. It also returns the
// expressions joined for display.
func hostQueries(exprs []string) (string, []index.HostQuery, error) {
	var qs []index.HostQuery
	for _, e := range exprs {
		l, err := hostlist.Parse(hostlist.Flux, e)
		if err != nil {
			return "", nil, err
		}
		for _, q := range l.Queries() {
			qs = append(qs, index.HostQuery{Exact: q.Exact, Name: q.Name, Alpha: q.Alpha, Digits: q.Digits, Lo: q.Lo, Hi: q.Hi})
		}
	}
	return strings.Join(exprs, " "), qs, nil
}
