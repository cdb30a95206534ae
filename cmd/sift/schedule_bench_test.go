package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// cirrusConf is the real EPCC Cirrus slurm.conf in the shared data.
const cirrusConf = "../../../shared/data/clusters/epcc-cirrus-slurm.conf"

// cirrusQueueFile is the committed 2,000-job queue for Cirrus
// (cirrusQueue's output; SIFT_UPDATE_GOLDEN=1 writes it again).
const cirrusQueueFile = "testdata/schedule/cirrus-2000.json"

// cirrusQueue is a 2,000-job queue for Cirrus's standard partition: about
// 80% of the first 240 nodes held by running 4-node jobs, the rest pending
// jobs of 1-16 whole nodes with random priorities and limits.
func cirrusQueue(tb testing.TB) []byte {
	r := rand.New(rand.NewPCG(7, 7))
	const t0 = 1795599000
	var jobs []map[string]any
	id := 1000
	for start := 0; start < 240; start += 4 {
		if r.IntN(5) == 0 {
			continue
		}
		id++
		var names []string
		for n := start; n < start+4; n++ {
			names = append(names, fmt.Sprintf("r1i%dn%d", n/36, n%36))
		}
		jobs = append(jobs, map[string]any{"id": id, "user": fmt.Sprintf("u%d", r.IntN(40)), "state": "running", "partition": "standard",
			"request": "nodes=4,exclusive", "nodes": strings.Join(names, ","), "start": t0 - 600, "end": t0 + 60 + r.IntN(36000)})
	}
	sizes := []int{1, 1, 1, 2, 4, 8, 16}
	for len(jobs) < 2000 {
		id++
		n := sizes[r.IntN(len(sizes))]
		jobs = append(jobs, map[string]any{"id": id, "user": fmt.Sprintf("u%d", r.IntN(40)), "partition": "standard", "priority": 1 + r.IntN(100000),
			"submit": t0 - r.IntN(86400), "time_limit": fmt.Sprint(10 + r.IntN(2870)), "request": fmt.Sprintf("nodes=%d,ntasks=%d", n, n*36)})
	}
	b, err := json.Marshal(map[string]any{"jobs": jobs})
	if err != nil {
		tb.Fatal(err)
	}
	return append(b, '\n')
}

// TestCirrusQueueFileIsGenerated keeps the committed queue (the README's
// example and BenchmarkScheduleCirrus read it) equal to its generator.
func TestCirrusQueueFileIsGenerated(t *testing.T) {
	want := cirrusQueue(t)
	if os.Getenv("SIFT_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(cirrusQueueFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(cirrusQueueFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from cirrusQueue's output (SIFT_UPDATE_GOLDEN=1 writes it again)", cirrusQueueFile)
	}
}

// BenchmarkScheduleCirrus is `sift schedule` (minus process start-up) on
// the real Cirrus slurm.conf with a 2,000-job queue: the acceptance asks
// for the table in under 2 s.
func BenchmarkScheduleCirrus(b *testing.B) {
	if _, err := os.Stat(cirrusConf); err != nil {
		b.Skip("shared Cirrus slurm.conf not present")
	}
	args := []string{"schedule", "--nodes", cirrusConf, "--jobs", cirrusQueueFile, "--at", "1795599000"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
