package bench

import (
	"strconv"
	"strings"
	"testing"
)

// The peer suites' Verify checks sift and the baselines against the match
// counts given with the peers' data at 100k nodes (issue 21); this runs it
// once per request without timing anything.
func TestPeerRequestsMatchTheGivenCountsAt100k(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 100k-node inventories")
	}
	for _, r := range peerRequests {
		t.Run(r.name, func(t *testing.T) {
			data := PeerSlurm
			if !strings.HasPrefix(r.name, "peer/slurm/") {
				data = PeerFlux
			}
			c, err := r.setup(data)(100000)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPeerDataFollowsTheFormulas(t *testing.T) {
	slurm := peerSlurmNodes(100000)
	for _, tc := range []struct {
		id   int
		want string
	}{
		{0, `{"a":0.00,"b":true,"c":0,"foo":"bar","zed":0,"load":0.0000}`},
		{3, `{"a":1.11,"b":false,"c":3,"foo":"baz","zed":3,"load":0.0000}`},
		{99999, `{"a":0.63,"b":false,"c":4,"foo":"grault","zed":49,"load":0.9999}`},
	} {
		if got := string(slurm[tc.id].Extra); got != tc.want {
			t.Errorf("slurm node %d extra = %s, want %s", tc.id, got, tc.want)
		}
	}
	flux := peerFluxNodes(100)
	for _, tc := range []struct {
		rank int
		want string
	}{
		// r=1: (11+k)%(k+2)==0 for k=1 (12%3) and k=7 (18%9).
		{1, "p1 p7"},
		{0, ""},
	} {
		if got := strings.Join(flux[tc.rank].Features, " "); got != tc.want || flux[tc.rank].Name != "node"+strconv.Itoa(tc.rank) {
			t.Errorf("flux rank %d: %s properties %q, want %q", tc.rank, flux[tc.rank].Name, got, tc.want)
		}
	}
}
