package compiler

import (
	"errors"
	"strings"

	"github.com/nodesift/sift/index"
)

// errNoHostlist is returned for hostlist leaves until the hostlist package,
// which decides their meaning, is available.
var errNoHostlist = errors.New("hostlist constraints are not supported yet")

// hostQueries turns RFC 29 hostlist expressions into index host queries.
func hostQueries(exprs []string) (string, []index.HostQuery, error) {
	return strings.Join(exprs, " "), nil, errNoHostlist
}
