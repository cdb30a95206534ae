package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraceLimitsSimulation schedules a day's worth of queue on Yale
// Grace's day, week, gpu and devel partitions (testdata/limits/grace,
// modelled on the YCRC partition table) under their per-user and
// per-account CPU and GPU limits, and checks that the pass reports the
// jobs held per reason and that no user or account runs over its limit.
func TestGraceLimitsSimulation(t *testing.T) {
	type gen struct {
		id                  uint32
		user, account, part string
		cpus, gpus, minutes int
	}
	users := map[string]string{"ann": "astro", "art": "astro", "ada": "astro", "cal": "chem", "cy": "chem", "bea": "bio", "ben": "bio"}
	names := []string{"ada", "ann", "art", "bea", "ben", "cal", "cy"}
	rng := rand.New(rand.NewSource(19))
	var jobs []gen
	var b strings.Builder
	b.WriteString(`{"jobs": [`)
	id := uint32(1000)
	add := func(g gen) {
		id++
		g.id = id
		jobs = append(jobs, g)
		spec := fmt.Sprintf("ntasks=%d,time=%d", g.cpus, g.minutes)
		if g.gpus > 0 {
			spec = fmt.Sprintf("nodes=1,ntasks=%d,gpus-per-node=%d,time=%d", g.cpus, g.gpus, g.minutes)
		}
		if len(jobs) > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n {\"id\": %d, \"user\": %q, \"account\": %q, \"partition\": %q, \"request\": %q}", g.id, g.user, g.account, g.part, spec)
	}
	for i := 0; i < 300; i++ {
		u := names[rng.Intn(len(names))]
		switch r := rng.Intn(10); {
		case r < 6:
			add(gen{user: u, account: users[u], part: "day", cpus: 48 * (1 + rng.Intn(8)), minutes: 60 + rng.Intn(600)})
		case r < 8:
			add(gen{user: u, account: users[u], part: "week", cpus: 12 * (1 + rng.Intn(4)), minutes: 600 + rng.Intn(6000)})
		default:
			add(gen{user: u, account: users[u], part: "gpu", cpus: 4, gpus: 1 + rng.Intn(4), minutes: 60 + rng.Intn(1200)})
		}
	}
	for _, u := range names {
		add(gen{user: u, account: users[u], part: "devel", cpus: 2, minutes: 30})
	}
	b.WriteString("\n]}\n")
	path := filepath.Join(t.TempDir(), "jobs.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const d = "testdata/limits/grace/"
	args := []string{"schedule", "--nodes", d + "slurm.conf", "--jobs", path, "--limits", d + "grace.dump", "--at", "1800000000", "--output", "json"}
	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out scheduleOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d started, held by limits: %v", len(out.Started), out.HeldByLimit)
	for _, r := range []string{"QOSMaxCpuPerUserLimit", "MaxCpuPerAccount", "MaxGRESPerAccount"} {
		if out.HeldByLimit[r] == 0 {
			t.Errorf("no job held with %s: %v", r, out.HeldByLimit)
		}
	}
	byID := map[uint32]gen{}
	for _, g := range jobs {
		byID[g.id] = g
	}
	type key struct{ who, part string }
	cpus, gpus := map[key]int{}, map[key]int{}
	for _, j := range out.Jobs {
		if j.State != "RUNNING" {
			continue
		}
		g := byID[j.ID]
		for _, who := range []string{"user " + g.user, "account " + g.account} {
			cpus[key{who, g.part}] += g.cpus
			gpus[key{who, g.part}] += g.gpus
		}
	}
	limits := map[key]int{
		{"user", "day"}: 1500, {"account", "day"}: 2500, {"user", "week"}: 108, {"account", "week"}: 252,
	}
	for k, v := range cpus {
		kind, _, _ := strings.Cut(k.who, " ")
		if lim, ok := limits[key{kind, k.part}]; ok && v > lim {
			t.Errorf("%s runs %d CPUs in %s, over %d", k.who, v, k.part, lim)
		}
	}
	for k, v := range gpus {
		kind, _, _ := strings.Cut(k.who, " ")
		if lim := map[string]int{"user": 24, "account": 48}[kind]; k.part == "gpu" && v > lim {
			t.Errorf("%s runs %d GPUs, over %d", k.who, v, lim)
		}
	}
}
