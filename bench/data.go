package bench

import (
	"embed"
	"fmt"
	"strconv"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
)

// The real inventories, converted from ../shared/data/clusters by
// `go run ./internal/cmd/convert-inventory` (see its doc comment) and embedded
// so that a user's `sift bench` needs no files.
//
//go:generate go run ./internal/cmd/convert-inventory -src ../../shared/data/clusters -out testdata
//go:embed testdata/cirrus.json testdata/grid5000.json
var realInventories embed.FS

// Dataset is a family of inventories that can be produced at any size.
type Dataset struct {
	// Name identifies the data in suite names ("synthetic", "cirrus", "grid5000").
	Name string
	// Nodes returns n nodes; the same n always gives the same nodes.
	Nodes func(n int) ([]index.Node, error)
}

// Synthetic is sift's synthetic cluster (inventory.Synthetic, seed 1), whose
// extra data carries the keys of Slurm's documentation examples (a, b, c,
// foo, zed) and realistic ones (arch, gpu_mem_gb, ib, rack, os).
var Synthetic = Dataset{Name: "synthetic", Nodes: func(n int) ([]index.Node, error) { return inventory.Synthetic(n, 1), nil }}

// Cirrus is EPCC Cirrus's slurm.conf (407 nodes), tiled to size.
var Cirrus = Dataset{Name: "cirrus", Nodes: func(n int) ([]index.Node, error) { return tiled("testdata/cirrus.json", "cirrus", n) }}

// Grid5000 is the Grid'5000 reference node descriptions (939 nodes), tiled to size.
var Grid5000 = Dataset{Name: "grid5000", Nodes: func(n int) ([]index.Node, error) { return tiled("testdata/grid5000.json", "g5k", n) }}

// tiled repeats the nodes of an embedded node file up to n, renaming hosts
// prefix0000001... (fixed width) so names stay unique and hostlist-friendly.
func tiled(file, prefix string, n int) ([]index.Node, error) {
	base, err := readNodeFile(file)
	if err != nil {
		return nil, err
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("bench: %s has no nodes", file)
	}
	width := len(strconv.Itoa(n))
	out := make([]index.Node, n)
	buf := make([]byte, 0, len(prefix)+width)
	for i := range out {
		out[i] = base[i%len(base)]
		buf = append(buf[:0], prefix...)
		buf = appendPadded(buf, uint64(i+1), width)
		out[i].Name = string(buf)
		out[i].Rank = uint32(i)
	}
	return out, nil
}

func appendPadded(b []byte, v uint64, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

// readNodeFile reads an embedded sift node file.
func readNodeFile(file string) ([]index.Node, error) {
	data, err := realInventories.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	nodes, _, err := inventory.ParseNodeFile(file, data)
	return nodes, err
}
