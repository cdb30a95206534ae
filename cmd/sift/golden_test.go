package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cliCase is one command line whose exit code and output are kept in a
// golden file, testdata/<dir>/<name>.golden. Set SIFT_UPDATE_GOLDEN=1 to
// rewrite the golden files from the current behaviour.
type cliCase struct {
	name string
	args []string
}

// runGolden runs each case in-process and compares its transcript with the
// golden file. scrub, when not nil, removes run-dependent text (timings).
func runGolden(t *testing.T, dir string, cases []cliCase, scrub func(string) string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(""), &stdout, &stderr)
			got := transcript(c.args, code, stdout.String(), stderr.String())
			if scrub != nil {
				got = scrub(got)
			}
			path := filepath.Join("testdata", dir, c.name+".golden")
			if os.Getenv("SIFT_UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with SIFT_UPDATE_GOLDEN=1 to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

func transcript(args []string, code int, stdout, stderr string) string {
	var b strings.Builder
	b.WriteString("$ sift")
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(a))
	}
	b.WriteString("\nexit " + strconv.Itoa(code) + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr)
	return b.String()
}
