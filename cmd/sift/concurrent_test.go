package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// TestMain lets the concurrency test run this binary as sift itself.
func TestMain(m *testing.M) {
	if os.Getenv("SIFT_TEST_AS_SIFT") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// 8 processes each run 50 one-node jobs on one state directory: every
// success has its own node, no run fails except as unsatisfiable, and
// state list shows exactly the successes.
func TestConcurrentSelectOnOneStateDirNeverDoubleAllocates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 400 processes")
	}
	dir := t.TempDir()
	var mu sync.Mutex
	got := map[string]bool{}
	var wg sync.WaitGroup
	for p := 0; p < 8; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				cmd := exec.Command(os.Args[0], "select", "--nodes", "synthetic:300", "--state", dir, "--now", "1000", "--job", "nodes=1,time=60")
				cmd.Env = append(os.Environ(), "SIFT_TEST_AS_SIFT=1")
				out, err := cmd.Output()
				if err != nil {
					if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == exitUnsatisfied {
						continue
					}
					t.Errorf("select: %v: %s", err, out)
					return
				}
				node := strings.SplitN(string(out), "\n", 2)[0]
				mu.Lock()
				if got[node] {
					t.Errorf("node %s allocated twice", node)
				}
				got[node] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(got) == 0 {
		t.Error("no job was allocated")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"state", "list", "--state", dir, "--nodes", "synthetic:300", "--output", "json"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("state list exit %d: %s", code, errb.String())
	}
	var list stateList
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	ids := map[uint32]bool{}
	for _, j := range list.Jobs {
		if j.NodeCount.Number != 1 || listed[j.Nodes] || ids[j.JobID] {
			t.Errorf("state lists job %d on %s (%d nodes) twice or with more than one node", j.JobID, j.Nodes, j.NodeCount.Number)
		}
		listed[j.Nodes], ids[j.JobID] = true, true
	}
	if !maps.Equal(listed, got) {
		t.Errorf("state lists %d jobs on %d nodes, want the %d successes", len(list.Jobs), len(listed), len(got))
	}
}
