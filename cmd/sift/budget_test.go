package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hostileInput is one over-budget input and the command that reads it.
type hostileInput struct {
	name string
	// make writes the input into dir and returns the command's arguments,
	// standard input and the input's size in bytes.
	make func(t *testing.T, dir string) (args []string, stdin []byte, size int)
	// msg is part of the one-line refusal.
	msg string
}

func writeInput(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// features returns n distinct feature names joined by sep.
func features(n int, sep string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(sep)
		}
		fmt.Fprintf(&b, "f%d", i)
	}
	return b.String()
}

var hostileInputs = []hostileInput{
	{"slurm.conf NodeName= of 64 ranges of 65536 hosts", func(t *testing.T, dir string) ([]string, []byte, int) {
		var hosts []string
		for i := range 64 {
			hosts = append(hosts, fmt.Sprintf("m%dx[0-65535]", i))
		}
		conf := "ClusterName=x\nNodeName=" + strings.Join(hosts, ",") + " CPUs=4\n"
		return []string{"inventory", "show", "--nodes", writeInput(t, dir, "slurm.conf", []byte(conf))}, nil, len(conf)
	}, "slurm.conf:2: field \"NodeName\": hostlist m0x[0-65535],m1x[0-65535],m2x[0-65535],m...: would make 4194304 nodes, more than the limit of 2097152 (--max-nodes)"},
	{"slurm.conf lines that together pass the node limit", func(t *testing.T, dir string) ([]string, []byte, int) {
		var hosts []string
		for i := range 32 {
			hosts = append(hosts, fmt.Sprintf("a%d[0-65535]", i))
		}
		conf := "NodeName=" + strings.Join(hosts, ",") + "\nNodeName=c[0-1] CPUs=1\n"
		return []string{"match", "--nodes", writeInput(t, dir, "slurm.conf", []byte(conf)), "a=1"}, nil, len(conf)
	}, "slurm.conf:2: field \"NodeName\": hostlist c[0-1]: would make 2097154 nodes (2097152 before it), more than the limit of 2097152 (--max-nodes)"},
	{"10 MB --requires text on the command line", func(t *testing.T, dir string) ([]string, []byte, int) {
		text := strings.Repeat("a ", 5<<20)
		return []string{"check", "--lang", "requires", text}, nil, len(text)
	}, "--requires expression longer than 65536 bytes"},
	{"10 MB --requires text from --expr-file -", func(t *testing.T, dir string) ([]string, []byte, int) {
		text := []byte(strings.Repeat("a|", 5<<20))
		return []string{"match", "--lang", "requires", "--expr-file", "-"}, text, len(text)
	}, "--requires expression longer than 65536 bytes"},
	{"5M nested parentheses in --requires", func(t *testing.T, dir string) ([]string, []byte, int) {
		text := strings.Repeat("(", 5_000_000) + "a" + strings.Repeat(")", 5_000_000)
		return []string{"check", "--lang", "requires", "--expr-file", writeInput(t, dir, "req", []byte(text))}, nil, len(text)
	}, "--requires expression longer than 65536 bytes"},
	{"900 nested parentheses in --requires", func(t *testing.T, dir string) ([]string, []byte, int) {
		text := strings.Repeat("(", 1000) + "a" + strings.Repeat(")", 1000)
		return []string{"check", "--lang", "requires", text}, nil, len(text)
	}, "more than 900 open parentheses and operators"},
	{"10 MB RFC 31 JSON", func(t *testing.T, dir string) ([]string, []byte, int) {
		text := `{"properties":["` + strings.Repeat(`a","`, 2<<20) + `b"]}`
		return []string{"check", "--lang", "flux", "--expr-file", writeInput(t, dir, "c.json", []byte(text))}, nil, len(text)
	}, "constraint longer than 65536 bytes"},
	{"10 MB Slurm --extra", func(t *testing.T, dir string) ([]string, []byte, int) {
		text := strings.Repeat("(", 5<<20) + strings.Repeat(")", 5<<20)
		return []string{"check", "--lang", "slurm", text}, nil, len(text)
	}, "constraint longer than 1024 bytes"},
	{"scontrol JSON node with 10^6 features as an array", func(t *testing.T, dir string) ([]string, []byte, int) {
		doc := `{"meta":{},"nodes":[{"name":"n1","cpus":4,"features":["` + features(1_000_000, `","`) + `"]}]}`
		return []string{"inventory", "show", "--nodes", writeInput(t, dir, "scontrol.json", []byte(doc))}, nil, len(doc)
	}, "scontrol.json: the array or object at byte 53: 1000000 items on one node, more than the limit of 4096 (--max-features)"},
	{"Flux R with 10^6 properties on one rank", func(t *testing.T, dir string) ([]string, []byte, int) {
		doc := `{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}],"nodelist":["n0"],"properties":{"` + features(1_000_000, `":"0","`) + `":"0"}}}`
		return []string{"inventory", "show", "--nodes", writeInput(t, dir, "R.json", []byte(doc))}, nil, len(doc)
	}, "R.json: execution.properties: 1000000 properties on one node, more than the limit of 4096 (--max-features)"},
	{"scontrol JSON node with 10^6 features", func(t *testing.T, dir string) ([]string, []byte, int) {
		doc := `{"meta":{},"nodes":[{"name":"n1","cpus":4,"features":"` + features(1_000_000, ",") + `"}]}`
		return []string{"inventory", "show", "--nodes", writeInput(t, dir, "scontrol.json", []byte(doc))}, nil, len(doc)
	}, "node n1: 1000000 features on one node, more than the limit of 4096 (--max-features)"},
	{"sift node file node with 10^6 features", func(t *testing.T, dir string) ([]string, []byte, int) {
		doc := `{"name":"n1","features":["` + features(1_000_000, `","`) + `"]}` + "\n"
		return []string{"match", "--nodes", writeInput(t, dir, "nodes.jsonl", []byte(doc)), "a=1"}, nil, len(doc)
	}, `nodes.jsonl:1:25: field "features": too long: 1000000 features on one node, more than the limit of 4096 (--max-features)`},
	{"sift node file node with 10^6 extra keys", func(t *testing.T, dir string) ([]string, []byte, int) {
		doc := `{"name":"n1","extra":{"` + features(1_000_000, `":1,"`) + `":1}}` + "\n"
		return []string{"match", "--nodes", writeInput(t, dir, "nodes.jsonl", []byte(doc)), "a=1"}, nil, len(doc)
	}, "1000000 extra keys on one node, more than the limit of 4096 (--max-features)"},
	{"slurm.conf Features= of 10^6 features", func(t *testing.T, dir string) ([]string, []byte, int) {
		conf := "NodeName=n[1-1000] Features=" + features(1_000_000, ",") + "\n"
		return []string{"inventory", "show", "--nodes", writeInput(t, dir, "slurm.conf", []byte(conf))}, nil, len(conf)
	}, "1000000 features on one node, more than the limit of 4096 (--max-features)"},
	{"Flux R with 3,000,001 ranks", func(t *testing.T, dir string) ([]string, []byte, int) {
		doc := `{"version":1,"execution":{"R_lite":[{"rank":"0-3000000","children":{"core":"0"}}],"nodelist":["n[0-3000000]"]}}`
		return []string{"inventory", "show", "--nodes", writeInput(t, dir, "R.json", []byte(doc))}, nil, len(doc)
	}, "R_lite rank 0-3000000: would make 3000001 nodes, more than the limit of 2097152 (--max-nodes)"},
	{"synthetic cluster over --max-nodes", func(t *testing.T, dir string) ([]string, []byte, int) {
		return []string{"match", "--nodes", "synthetic:3000000", "a=1"}, nil, len("synthetic:3000000")
	}, "synthetic:3000000: synthetic cluster: would make 3000000 nodes, more than the limit of 2097152 (--max-nodes)"},
}

// heapUse runs f and returns the most heap it allocated: the growth of
// TotalAlloc, which bounds the peak of the live heap from above and, unlike
// a sample of HeapAlloc, misses no short peak.
func heapUse(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Every hostile input of issue 15 is refused as invalid input (exit 2) with
// one line naming the limit, having allocated at most 64 MB plus 32 bytes a
// byte of input. Without the limits these took gigabytes.
func TestHostileInputsAreRefusedWithinTheMemoryBudget(t *testing.T) {
	for _, in := range hostileInputs {
		t.Run(in.name, func(t *testing.T) {
			args, stdin, size := in.make(t, t.TempDir())
			var out, errb bytes.Buffer
			var code int
			used := heapUse(func() { code = run(args, bytes.NewReader(stdin), &out, &errb) })
			budget := uint64(64<<20 + 32*size)
			t.Logf("%d-byte input: %.1f MB allocated, budget %.1f MB", size, float64(used)/(1<<20), float64(budget)/(1<<20))
			first, _, _ := strings.Cut(errb.String(), "\n")
			if code != exitInvalidInput || !strings.Contains(first, in.msg) {
				t.Errorf("exit %d, stderr %.300q; want exit 2 and %q", code, errb.String(), in.msg)
			}
			if used > budget {
				t.Errorf("allocated %d bytes, over the budget of %d", used, budget)
			}
		})
	}
}
