package main

import (
	"strings"
	"testing"
)

func TestIdsetCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		out  string
		code int
	}{
		{"encode sorts and ranges", []string{"idset", "encode", "7,1,2,3"}, "1-3,7\n", 0},
		{"encode accepts blanks", []string{"idset", "encode", "1 2 3"}, "1-3\n", 0},
		{"encode dedupes", []string{"idset", "encode", "3,3,2"}, "2-3\n", 0},
		{"encode with brackets", []string{"idset", "encode", "--brackets", "7,1,2,3"}, "[1-3,7]\n", 0},
		{"encode one id never bracketed", []string{"idset", "encode", "--brackets", "5"}, "5\n", 0},
		{"encode empty", []string{"idset", "encode", ""}, "\n", 0},
		{"encode invalid", []string{"idset", "encode", "1,x"}, "", 2},
		{"decode prints one id a line", []string{"idset", "decode", "[0-2,5]"}, "0\n1\n2\n5\n", 0},
		{"decode empty", []string{"idset", "decode", ""}, "", 0},
		{"decode rejects unsorted", []string{"idset", "decode", "3,2"}, "", 2},
		{"decode rejects leading zeros", []string{"idset", "decode", "01"}, "", 2},
		{"decode rejects ids past 2^31-1", []string{"idset", "decode", "2147483648"}, "", 2},
		{"unknown subcommand", []string{"idset", "frob", "1"}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(tt.args...)
			if code != tt.code || (tt.code == 0 && out != tt.out) {
				t.Fatalf("sift %q = %q (stderr %q), exit %d; want %q, exit %d", tt.args, out, errOut, code, tt.out, tt.code)
			}
		})
	}
}

func TestIdsetDecodeMessageIsFluxs(t *testing.T) {
	_, errOut, _ := runCLI("idset", "decode", "1-3,2-5")
	if want := "sift: range '2-5' is out of order\n  1-3,2-5\n      ^\n"; errOut != want {
		t.Fatalf("stderr %q, want %q", errOut, want)
	}
}

func TestIdsetDecodeStreamsLargeRanges(t *testing.T) {
	out, _, code := runCLI("idset", "decode", "0-99999")
	if code != 0 || strings.Count(out, "\n") != 100000 || !strings.HasSuffix(out, "\n99999\n") {
		t.Fatalf("exit %d, %d lines", code, strings.Count(out, "\n"))
	}
}

func TestIdsetDecodeOverMaximumNamesTheMaximum(t *testing.T) {
	_, errOut, code := runCLI("idset", "decode", "0-3000000000")
	if want := "sift: error appending '0-3000000000': set universe size would exceed maximum 2147483647\n  0-3000000000\n  ^\n"; errOut != want || code != exitInvalidInput {
		t.Fatalf("stderr %q exit %d, want %q exit 2", errOut, code, want)
	}
}
