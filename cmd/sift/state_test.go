package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStateListShowsRecordedJobsAndRemovesDeadWritersFiles(t *testing.T) {
	dir := t.TempDir()
	const nodes = "testdata/select/nodes.json"
	var got []string
	for _, spec := range []string{"nodes=2,partition=batch,time=30", "nodes=1,partition=gpu,time=60"} {
		out, errs, code := runCLI("select", "--nodes", nodes, "--state", dir, "--now", "1000", "--job", spec)
		if code != 0 {
			t.Fatalf("select %s: %d %q %q", spec, code, out, errs)
		}
		got = append(got, strings.TrimSpace(out))
	}
	dead := filepath.Join(dir, "select_linear.state.new-4242")
	if err := os.WriteFile(dead, []byte("half-written"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI("state", "list", "--state", dir, "--nodes", nodes)
	want := "JOBID  PLUGIN  STATE    NODES  START_TIME            END_TIME              NODELIST\n" +
		"1      linear  RUNNING  2      1970-01-01T00:16:40Z  1970-01-01T00:46:40Z  " + got[0] + "\n" +
		"2      linear  RUNNING  1      1970-01-01T00:16:40Z  1970-01-01T01:16:40Z  " + got[1] + "\n"
	if code != 0 || out != want {
		t.Fatalf("state list: %d\n%s\nwant\n%s\nstderr %q", code, out, want, errs)
	}
	if !strings.Contains(errs, "removed "+dead) {
		t.Errorf("no warning about the dead writer's file: %q", errs)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s not removed: %v", dead, err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"other inventory", []string{"--nodes", "synthetic:30"}, exitRuntime, "state is for 5 nodes, the cluster has 30"},
		{"unknown plugin", []string{"--nodes", nodes, "--plugin", "cons_res"}, exitInvalidInput, "unknown --plugin"},
		{"other plugin has no state", []string{"--nodes", nodes, "--plugin", "cons_tres"}, exitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := runCLI(append([]string{"state", "list", "--state", dir}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Fatalf("got %d %q, want %d and %q", code, errs, tc.code, tc.msg)
			}
		})
	}
}
