package main

import (
	"bytes"
	"strings"
	"testing"
)

func runCLI(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestHostlistCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		out  string
		code int
	}{
		{"expand prints one host a line", []string{"hostlist", "expand", "node[1-3]"}, "node1\nnode2\nnode3\n", 0},
		{"expand defaults to slurm", []string{"hostlist", "expand", "r[1-2]n[1-2]"}, "r1n1\nr1n2\nr2n1\nr2n2\n", 0},
		{"expand in flux keeps the second bracket", []string{"hostlist", "expand", "--dialect", "flux", "n[1-2]-[1-2]"}, "n1-[1-2]\nn2-[1-2]\n", 0},
		{"compress keeps order and duplicates", []string{"hostlist", "compress", "n2,n1,n1"}, "n[2,1,1]\n", 0},
		{"compress in flux", []string{"hostlist", "compress", "--dialect=flux", "foo9 foo10"}, "foo[9-10]\n", 0},
		{"sort keeps duplicates", []string{"hostlist", "sort", "n3,n1,n1,n2"}, "n[1,1-3]\n", 0},
		{"uniq removes duplicates", []string{"hostlist", "uniq", "n3,n1,n1,n2"}, "n[1-3]\n", 0},
		{"count counts duplicates", []string{"hostlist", "count", "n[1-3],n1"}, "4\n", 0},
		{"count a huge range", []string{"hostlist", "count", "--dialect", "flux", "n[0-1048575]"}, "1048576\n", 0},
		{"empty list", []string{"hostlist", "compress", ""}, "\n", 0},
		{"invalid expression", []string{"hostlist", "expand", "n[1"}, "", 2},
		{"range too large", []string{"hostlist", "count", "n[0-65536]"}, "", 2},
		{"unknown dialect", []string{"hostlist", "count", "--dialect", "pbs", "n1"}, "", 2},
		{"unknown subcommand", []string{"hostlist", "explode", "n1"}, "", 2},
		{"missing expression", []string{"hostlist", "expand"}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(tt.args...)
			if code != tt.code || (tt.code == 0 && out != tt.out) {
				t.Fatalf("sift %q = %q (stderr %q), exit %d; want %q, exit %d", tt.args, out, errOut, code, tt.out, tt.code)
			}
			if code != 0 && !strings.HasPrefix(errOut, "sift: ") {
				t.Fatalf("stderr %q does not start with sift:", errOut)
			}
		})
	}
}

func TestHostlistExpandRefusesHugeLists(t *testing.T) {
	_, errOut, code := runCLI("hostlist", "expand", "--dialect", "flux", "a[0-1048575],b[0-1048575],c[0-1048575],d[0-1048575],e[0-1048575],f[0-1048575],g[0-1048575],h[0-1048575],i[0-1048575],j[0-1048575],k[0-1048575],l[0-1048575],m[0-1048575],n[0-1048575],o[0-1048575],p[0-1048575],q[0-1048575]")
	if code != 2 || !strings.Contains(errOut, "more than the 16777216") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestHostlistAndIdsetReadStandardInputForDash(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		out   string
	}{
		{"hostlist words and lines", []string{"hostlist", "compress", "-"}, "n1 n2\nn3,m[1-2]\n", "n[1-3],m[1-2]\n"},
		{"hostlist in flux", []string{"hostlist", "uniq", "--dialect", "flux", "-"}, "b2\nb1\nb2\n", "b[1-2]\n"},
		{"idset encode", []string{"idset", "encode", "-"}, "5\n3 1\n2\n", "1-3,5\n"},
		{"idset decode", []string{"idset", "decode", "-"}, "1-3\n", "1\n2\n3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, strings.NewReader(tt.stdin), &out, &errb); code != 0 || out.String() != tt.out {
				t.Fatalf("sift %q < %q = %q (stderr %q), exit %d; want %q", tt.args, tt.stdin, out.String(), errb.String(), code, tt.out)
			}
		})
	}
}

func TestStandardInputWithNULIsRefusedWithItsOffset(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"hostlist", []string{"hostlist", "compress", "-"}, "n1 n2\x00n3\n", "NUL byte at byte offset 5"},
		{"hostlist first byte", []string{"hostlist", "count", "-"}, "\x00n1", "NUL byte at byte offset 0"},
		{"idset", []string{"idset", "encode", "-"}, "1 2\n\x003", "NUL byte at byte offset 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &out, &errb)
			if code != exitInvalidInput || out.Len() != 0 || !strings.Contains(errb.String(), tt.want) {
				t.Fatalf("sift %q < %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, tt.stdin, code, out.String(), errb.String(), tt.want)
			}
		})
	}
}
