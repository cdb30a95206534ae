package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodesift/sift/position"
)

func TestEveryPositionedErrorShowsACaret(t *testing.T) {
	jobs := filepath.Join(t.TempDir(), "jobs.json")
	if err := os.WriteFile(jobs, []byte("{\"jobs\": [\n {\"id\": 1, \"request\": \"nodes=1\"},\n {\"id\": 2, \"bogus\": 3}\n]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"slurm constraint", []string{"check", "a=1&&b=2"},
			"sift: invalid constraint at byte 4: expected a key or \"(\": boolean operators are single characters\n  a=1&&b=2\n      ^\n"},
		{"job spec", []string{"select", "--job", "nodes=1,bogus=2"},
			"sift: invalid job spec at byte 8: unknown key \"bogus\"; expected one of id, nodes, ntasks, cpus-per-task, ntasks-per-node, ntasks-per-core, ntasks-per-socket, sockets-per-node, cores-per-socket, threads-per-core, mem, mem-per-cpu, gpus-per-node, gpus, contiguous, exclusive, oversubscribe, preemptable, nodelist, exclude, time, partition, priority, distribution, extra, requires, jobspec\n  nodes=1,bogus=2\n          ^\n"},
		{"hostlist", []string{"hostlist", "expand", "n[1-"},
			"sift: invalid hostlist at byte 1: missing ']'\n  n[1-\n   ^\n"},
		{"idset decode", []string{"idset", "decode", "3,1"},
			"sift: range '1' is out of order\n  3,1\n    ^\n"},
		{"idset encode", []string{"idset", "encode", "0,1-x"},
			"sift: error parsing range '1-x'\n  0,1-x\n    ^\n"},
		{"jobs file names the line", []string{"schedule", "--jobs", jobs},
			"sift: " + jobs + ": jobs file, job 2 (byte 46): json: unknown field \"bogus\"\n  line 3:  {\"id\": 2, \"bogus\": 3}\n           ^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(tt.args...)
			if code != exitInvalidInput || errOut != tt.want {
				t.Errorf("sift %q: exit %d, stderr\n%s\nwant exit 2, stderr\n%s", tt.args, code, errOut, tt.want)
			}
		})
	}
}

// A long value that an error message quotes is cut to about 100 bytes, as
// the caret excerpt is, so no error line repeats kilobytes of input.
func TestLongValuesQuotedInMessagesAreClipped(t *testing.T) {
	long := strings.Repeat("x", 5000)
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte("NodeName=n1 CPUs=4 State="+long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := filepath.Join(dir, "jobs.json")
	if err := os.WriteFile(jobs, []byte(`{"jobs": [{"id": 1, "request": "nodes=1", "dependency": "after`+long+`"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"hostlist range", []string{"hostlist", "expand", "n[1-" + long + "]"}},
		{"idset range", []string{"idset", "decode", "1-" + long}},
		{"idset order", []string{"idset", "decode", "9" + strings.Repeat("0", 3000) + "-1"}},
		{"job spec key", []string{"select", "--nodes", "synthetic:10", "--job", "nodes=1," + long + "=1"}},
		{"job spec size", []string{"select", "--nodes", "synthetic:10", "--job", "nodes=1,mem=1" + long}},
		{"requires value", []string{"check", "--lang", "requires", "host:n[" + long}},
		{"nodes spec", []string{"inventory", "show", "--nodes", "synthetic:" + long}},
		{"slurm.conf value", []string{"inventory", "show", "--nodes", conf}},
		{"jobs file value", []string{"schedule", "--nodes", "synthetic:4", "--jobs", jobs, "--at", "1000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(tt.args...)
			if code == 0 {
				t.Fatalf("exit 0, want an error; stderr %.200q", errOut)
			}
			for _, line := range strings.Split(errOut, "\n") {
				if strings.Contains(line, strings.Repeat("x", position.Width+1)) || strings.Contains(line, strings.Repeat("0", position.Width+1)) {
					t.Errorf("stderr line of %d bytes echoes more than %d bytes of the value: %.200q", len(line), position.Width, line)
				}
			}
		})
	}
}
