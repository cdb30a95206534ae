//go:build unix

package inventory

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLoadReadsAPipeWhole checks that a named pipe, which the streaming
// reader could not read twice, goes to the general reader: slurm.conf
// through a pipe must still load.
func TestLoadReadsAPipeWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	go func() {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.WriteString("NodeName=n[1-3] CPUs=4\n")
			f.Close()
		}
	}()
	nodes, _, err := Load(path)
	if err != nil || len(nodes) != 3 {
		t.Fatalf("Load of a pipe: %d nodes, %v; want 3", len(nodes), err)
	}
}
