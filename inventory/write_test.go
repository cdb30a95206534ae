package inventory

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriteNodeFileRoundTrips converts every format to sift JSON, loads
// that, and converts again: the two outputs must be the same bytes, and the
// nodes the same.
func TestWriteNodeFileRoundTrips(t *testing.T) {
	sources := []string{"testdata/scontrol-nodes.json", "testdata/sinfo.json", "../../shared/data/clusters/epcc-cirrus-slurm.conf",
		"../../shared/data/clusters/flux-fluke.R.json"}
	for _, src := range sources {
		t.Run(src, func(t *testing.T) {
			if _, err := os.Stat(src); err != nil {
				t.Skip("not present")
			}
			c, _, err := LoadCluster(src, "")
			if err != nil {
				t.Fatal(err)
			}
			var first bytes.Buffer
			if err := WriteNodeFile(&first, c.Nodes); err != nil {
				t.Fatal(err)
			}
			nodes, _, err := Parse("converted.json", first.Bytes())
			if err != nil {
				t.Fatalf("reading the converted file: %v\n%s", err, first.String())
			}
			if diff := cmp.Diff(c.Nodes, nodes, cmp.Comparer(bytes.Equal)); diff != "" {
				t.Errorf("nodes changed by the round trip (-before +after):\n%s", diff)
			}
			var second bytes.Buffer
			if err := WriteNodeFile(&second, nodes); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Errorf("convert -> load -> convert differs:\n%s\n---\n%s", first.String(), second.String())
			}
		})
	}
}

func TestWriteNodeFileSynthetic(t *testing.T) {
	nodes := Synthetic(200, 7)
	var out bytes.Buffer
	if err := WriteNodeFile(&out, nodes); err != nil {
		t.Fatal(err)
	}
	back, _, err := Parse("synthetic.json", out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(nodes, back, cmp.Comparer(bytes.Equal)); diff != "" {
		t.Errorf("synthetic nodes changed (-before +after):\n%s", diff)
	}
}
