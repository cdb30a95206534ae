package main

import (
	"os"
	"path/filepath"
	"testing"
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
