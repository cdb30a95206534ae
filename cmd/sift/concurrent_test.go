package main

import (
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
// success has its own node and no run fails except as unsatisfiable.
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
}
