// Command peer-nodes writes the peer suites' data (bench.PeerSlurm and
// bench.PeerFlux) as sift node files, so that `sift match --explain` can
// time one cold run on exactly the data `sift bench --suite peer` uses:
//
//	go run ./bench/internal/cmd/peer-nodes -nodes 100000 -out /tmp
//
// writes /tmp/peer-slurm-100000.json and /tmp/peer-flux-100000.json.
package main
