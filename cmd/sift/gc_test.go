package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/nodesift/sift/inventory"
)

// TestPauseGCOnlyForLargeFiles checks that reading a large sift node file
// in its common form turns the collector off within a limit, that the
// restore puts both settings back, and that small files, other formats,
// synthetic clusters and a set GOGC are left alone.
func TestPauseGCOnlyForLargeFiles(t *testing.T) {
	dir := t.TempDir()
	large, small := filepath.Join(dir, "large"), filepath.Join(dir, "small")
	other := filepath.Join(dir, "scontrol.json")
	// Sparse files: pauseGC reads their size and first line only.
	for path, first := range map[string]string{large: "{\"nodes\":[\n", other: "{\n  \"nodes\": [\n"} {
		if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, largeFile); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(small, []byte(`{"name":"n1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	tests := []struct {
		name  string
		spec  inventory.Spec
		gogc  string
		pause bool
	}{
		{"large file", inventory.Spec{Path: large}, "", true},
		{"small file", inventory.Spec{Path: small}, "", false},
		{"large file of another format", inventory.Spec{Path: other}, "", false},
		{"large file read as another format", inventory.Spec{Path: large, Format: "slurm-json"}, "", false},
		{"missing file", inventory.Spec{Path: filepath.Join(dir, "none")}, "", false},
		{"synthetic", inventory.Spec{Synthetic: true, N: 10}, "", false},
		{"GOGC set", inventory.Spec{Path: large}, "200", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.gogc != "" {
				t.Setenv("GOGC", tt.gogc)
			}
			restore := pauseGC(tt.spec)
			paused := gcPercent() == -1
			wantLimit := limit
			if tt.pause {
				wantLimit = memoryBase + fileFactor*largeFile
			}
			if got := debug.SetMemoryLimit(-1); paused != tt.pause || got != wantLimit {
				t.Errorf("collector off %t (want %t), limit %d (want %d)", paused, tt.pause, got, wantLimit)
			}
			restore()
			if gcPercent() != before || debug.SetMemoryLimit(-1) != limit {
				t.Errorf("restore left GOGC %d and limit %d, want %d and %d", gcPercent(), debug.SetMemoryLimit(-1), before, limit)
			}
		})
	}
}
