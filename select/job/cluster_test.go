package job

import (
	"testing"

	"github.com/nodesift/sift/index"
)

// TestNewClusterThreadsFollowInitNodeRecord checks node_conf.c
// _init_node_record: tpc is 1 when the cores cover the CPUs.
func TestNewClusterThreadsFollowInitNodeRecord(t *testing.T) {
	for _, tc := range []struct {
		name                                string
		cpus, sockets, cores, threads, want int
	}{
		{"cirrus cpus equal cores", 36, 2, 18, 2, 1},
		{"hyperthreads schedulable", 72, 2, 18, 2, 2},
		{"cpus omitted", 0, 2, 4, 2, 2},
		{"fewer cpus than cores", 4, 1, 8, 2, 1},
		{"single thread", 8, 1, 8, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := index.Build([]index.Node{{Name: "n0", CPUs: tc.cpus, Sockets: tc.sockets, CoresPerSocket: tc.cores, ThreadsPerCore: tc.threads}})
			if err != nil {
				t.Fatal(err)
			}
			if got := NewCluster(s).Threads[0]; got != tc.want {
				t.Errorf("threads %d, want %d", got, tc.want)
			}
		})
	}
}
