package inventory

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodesift/sift/index"
)

// slurmStreamAgrees checks the streaming reader of Slurm's JSON against the
// general one on data, with Load's detection and with the format named:
// whatever it accepts, the general reader must accept the same way (nodes
// and warnings). It reports whether the streaming reader accepted with
// detection.
func slurmStreamAgrees(t *testing.T, data []byte, lim Limits) bool {
	t.Helper()
	accepted := false
	for _, detect := range []bool{true, false} {
		var got []index.Node
		took := 0
		// Windows of a few bytes (values across many reads) and the usual size.
		sizes := []int{7, 64, 1 << 20}
		for _, size := range sizes {
			saved := slurmWindow
			slurmWindow = size
			nodes, err := streamSlurmJSON("f", bytes.NewReader(data), detect, lim)
			slurmWindow = saved
			if err != nil && !errors.Is(err, errDecline) {
				t.Fatalf("streaming reader, %d-byte window: %v", size, err)
			}
			if err == nil {
				if took > 0 && !reflect.DeepEqual(got, nodes) {
					t.Fatalf("a %d-byte window gives other nodes (-before +now):\n%s", size, cmp.Diff(got, nodes))
				}
				took++
				got = nodes
			}
		}
		if took == 0 {
			continue
		}
		if took != len(sizes) {
			t.Fatalf("the streaming reader accepts the document with some window sizes only")
		}
		format := ""
		if !detect {
			format = "slurm-json"
		}
		c, warnings, err := ParseClusterWithin("f", data, format, lim)
		if err != nil {
			t.Fatalf("detect %t: the streaming reader accepts what the general one refuses: %v", detect, err)
		}
		if !reflect.DeepEqual(c.Nodes, got) {
			t.Fatalf("detect %t: nodes differ (-general +streaming):\n%s", detect, cmp.Diff(c.Nodes, got))
		}
		if w := extraWarnings("f", got); !reflect.DeepEqual(warnings, w) {
			t.Fatalf("detect %t: warnings differ: general %v, streaming %v", detect, warnings, w)
		}
		accepted = accepted || detect
	}
	return accepted
}

var slurmStreamCases = []struct {
	name   string
	text   string
	stream bool // the streaming reader takes it, with detection
}{
	{"scontrol", `{"meta":{"plugin":{"type":"openapi"}},"nodes":[{"name":"a","cpus":4,"extra":"{\"x\":1}"},{"name":"b","extra":"nope"}],"errors":[],"warnings":[]}`, true},
	{"meta after the nodes", `{"nodes":[{"name":"a","hostname":"a"}],"meta":{},"last_update":{"number":1}}`, true},
	// The detector would take it, but only the end tells.
	{"meta after undetected nodes", `{"nodes":[{"name":"a"}],"meta":{}}`, false},
	{"detected by the first node", ` { "nodes" : [ {"name":"a","real_memory":1000} ] } `, true},
	{"not detected", `{"nodes":[{"name":"a","cpus":4}]}`, false},
	{"no nodes", `{"meta":{},"nodes":[]}`, true},
	{"sinfo", `{"sinfo":[{"nodes":{"nodes":["n[1-3]"]},"partition":{"name":"p"},"cpus":{"maximum":4}},{"nodes":{"nodes":["n2","m1"]},"partition":{"name":"q"}}],"errors":[]}`, true},
	{"sinfo and nodes", `{"sinfo":[],"nodes":[{"name":"a"}],"meta":{}}`, false},
	{"slurm error", `{"nodes":[{"name":"a"}],"meta":{},"errors":[{"error":"Invalid authentication"}]}`, false},
	{"errors not an array", `{"meta":{},"nodes":[{"name":"a"}],"errors":{}}`, true},
	{"duplicate node", `{"nodes":[{"name":"a"},{"name":"a"}],"meta":{}}`, false},
	{"node without a name", `{"nodes":[{"cpus":1}],"meta":{}}`, false},
	{"escaped key", `{"n\u006fdes":[{"name":"a"}],"meta":{}}`, false},
	{"escaped marker", `{"nodes":[{"name":"a"}],"m\u0065ta":{}}`, false},
	{"repeated key", `{"nodes":[{"name":"a"}],"nodes":[{"name":"b"}],"meta":{}}`, false},
	{"other key", `{"nodes":[{"name":"a"}],"meta":{},"jobs":[]}`, false},
	{"Flux R", `{"version":1,"execution":{"R_lite":[]}}`, false},
	{"nodes not an array", `{"nodes":{},"meta":{}}`, false},
	{"invalid JSON", `{"nodes":[{"name":"a"}],"meta":{`, false},
	{"junk after", `{"nodes":[{"name":"a"}],"meta":{}} x`, false},
	{"deep meta", `{"nodes":[{"name":"a"}],"meta":` + strings.Repeat("[", 299) + strings.Repeat("]", 299) + `}`, false},
	{"empty object", `{}`, false},
}

func TestSlurmStreamingReaderAgreesWithTheGeneralOne(t *testing.T) {
	for _, tt := range slurmStreamCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := slurmStreamAgrees(t, []byte(tt.text), DefaultLimits()); got != tt.stream {
				t.Errorf("streaming reader took it: %t, want %t", got, tt.stream)
			}
		})
	}
	for _, file := range []string{"testdata/scontrol-nodes.json", "testdata/sinfo.json"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !slurmStreamAgrees(t, data, DefaultLimits()) {
				t.Error("the streaming reader declined Slurm's output")
			}
		})
	}
}

func TestSlurmStreamingReaderDeclinesOverTheLimits(t *testing.T) {
	data := []byte(`{"meta":{},"nodes":[{"name":"a","features":["x","y","z"]},{"name":"b"}]}`)
	for _, lim := range []Limits{{MaxNodes: 1}, {MaxFeatures: 2}} {
		if slurmStreamAgrees(t, data, lim) {
			t.Errorf("limits %+v: the streaming reader took the document", lim)
		}
	}
}

// FuzzSlurmStreamingReader is the differential test of the streaming reader
// of Slurm's JSON: whatever it accepts, the general reader accepts the same
// way.
func FuzzSlurmStreamingReader(f *testing.F) {
	for _, tt := range slurmStreamCases {
		f.Add([]byte(tt.text))
	}
	for _, file := range []string{"testdata/scontrol-nodes.json", "testdata/sinfo.json"} {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Tight limits for half the inputs, to reach the limits' paths.
		lim := DefaultLimits()
		if len(data)%2 == 1 {
			lim = Limits{MaxNodes: 64, MaxFeatures: 8}
		}
		slurmStreamAgrees(t, data, lim)
	})
}
