package main

import (
	"strings"
	"testing"
)

func TestSelectGolden(t *testing.T) {
	const nodes = "testdata/select/nodes.json"
	const cirrus = "testdata/select/cirrus.conf"
	runGolden(t, "select", []cliCase{
		{"linear-best-fit", []string{"select", "--nodes", nodes, "--job", "nodes=2"}},
		{"linear-constraint", []string{"select", "--nodes", nodes, "--job", "nodes=2,extra=zed>=2"}},
		{"linear-json", []string{"select", "--nodes", nodes, "--output", "json", "--now", "1000", "--job", "nodes=1,partition=gpu"}},
		{"cons-tres-per-node", []string{"select", "--nodes", nodes, "--plugin", "cons_tres", "--job", "ntasks=6,mem-per-cpu=1G"}},
		{"cons-tres-block", []string{"select", "--nodes", nodes, "--plugin", "cons_tres", "--job", "ntasks=3,distribution=block"}},
		{"cons-tres-gpus", []string{"select", "--nodes", nodes, "--plugin", "cons_tres", "--job", "nodes=1,gpus-per-node=a100:2,ntasks=2"}},
		{"cons-tres-requires", []string{"select", "--nodes", nodes, "--plugin", "cons_tres", "--job", "nodes=1,requires=host:n4"}},
		{"test-only", []string{"select", "--nodes", nodes, "--mode", "test-only", "--job", "nodes=4,partition=batch"}},
		{"never-runnable", []string{"select", "--nodes", nodes, "--job", "nodes=6"}},
		{"busy-down-node", []string{"select", "--nodes", nodes, "--job", "nodes=4,partition=batch"}},
		{"required-nodes", []string{"select", "--nodes", nodes, "--job", "nodes=2,nodelist=n4"}},
		{"unknown-required-node", []string{"select", "--nodes", nodes, "--job", "nodes=2,nodelist=n9"}},
		{"invalid-job", []string{"select", "--nodes", nodes, "--job", "nodes=2,time=1:2:3:4"}},
		{"invalid-constraint", []string{"select", "--nodes", nodes, "--job", "nodes=2,extra=zed>>1"}},
		{"unknown-plugin", []string{"select", "--nodes", nodes, "--plugin", "cons_res", "--job", "nodes=1"}},
		{"unknown-partition", []string{"select", "--nodes", nodes, "--job", "nodes=1,partition=nope"}},
		{"missing-job", []string{"select", "--nodes", nodes}},
		{"cirrus-cpus-are-cores", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "ntasks=8,partition=standard"}},
		{"cirrus-two-nodes", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "nodes=2,ntasks=8,partition=standard"}},
		{"cirrus-max-mem-per-cpu", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "ntasks=2,mem-per-cpu=10000,partition=standard"}},
		{"cirrus-cr-core-cyclic", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--select-type-parameters", "CR_Core", "--job", "ntasks=4,partition=standard"}},
		{"linear-ntasks-per-core", []string{"select", "--nodes", nodes, "--job", "ntasks=2,ntasks-per-core=1"}},
		{"cirrus-ntasks-per-core", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "ntasks=3,cpus-per-task=3,ntasks-per-core=1,partition=standard"}},
		{"cirrus-ntasks-per-socket", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "ntasks=4,ntasks-per-socket=1,partition=standard"}},
		{"cirrus-sockets-cores-threads", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "nodes=1,sockets-per-node=2,cores-per-socket=2,partition=standard"}},
		{"cirrus-threads-per-core-too-many", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "nodes=1,threads-per-core=3,partition=standard"}},
		{"ntasks-per-core-above-threads-per-core", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "ntasks=2,threads-per-core=1,ntasks-per-core=2"}},
		{"ntasks-per-socket-with-gpus", []string{"select", "--nodes", nodes, "--plugin", "cons_tres", "--job", "nodes=1,gpus-per-node=a100:2,ntasks-per-socket=1"}},
		{"bad-select-type-parameters", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--select-type-parameters", "CR_Bogus", "--job", "ntasks=4,partition=standard"}},
		{"explain-chain", []string{"select", "--nodes", nodes, "--explain", "--job", "nodes=1,partition=batch,extra=zed>=2,exclude=n1,mem=1G"}},
		{"explain-busy", []string{"select", "--nodes", nodes, "--explain", "--job", "nodes=4,partition=batch"}},
		{"no-default-partition", []string{"select", "--nodes", cirrus, "--plugin", "cons_tres", "--job", "ntasks=4"}},
	}, nil)
}

func TestSelectStateAccumulatesAndWillRun(t *testing.T) {
	dir := t.TempDir()
	const nodes = "testdata/select/nodes.json"
	base := []string{"select", "--nodes", nodes, "--plugin", "cons_tres", "--state", dir, "--now", "1000"}
	out, errs, code := runCLI(append(base, "--job", "nodes=3,exclusive,partition=batch,time=30")...)
	if code != 0 || !strings.HasPrefix(out, "n[1-2,4]\n") {
		t.Fatalf("first job: %d %q %q", code, out, errs)
	}
	_, errs, code = runCLI(append(base, "--job", "nodes=1,ntasks=1,partition=batch")...)
	if code != 3 || !strings.Contains(errs, "busy now") {
		t.Fatalf("second job should be busy: %d %q", code, errs)
	}
	out, errs, code = runCLI(append(base, "--mode", "will-run", "--job", "nodes=1,ntasks=1,partition=batch")...)
	if code != 0 || !strings.Contains(out, "start=1970-01-01T00:46:40Z") {
		t.Fatalf("will-run: %d %q %q", code, out, errs)
	}
}

func TestSelectAndsEveryConstraint(t *testing.T) {
	out, errs, code := runCLI("select", "--nodes", "testdata/select/nodes.json", "--job", "nodes=1,extra=zed>1,zed<4,requires=host:n[1-3]")
	if code != 0 || out != "n2\n" {
		t.Fatalf("got %d %q %q", code, out, errs)
	}
}
