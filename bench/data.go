package bench

import (
	"embed"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/nodesift/sift/index"
	"github.com/valyala/fastjson"
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

// Synthetic is a deterministic synthetic cluster whose extra data carries
// the keys of Slurm's documentation examples (a, b, c, foo, zed) and a few
// realistic ones (arch, gpu_mem_gb, ib, rack, os).
var Synthetic = Dataset{Name: "synthetic", Nodes: func(n int) ([]index.Node, error) { return syntheticNodes(n, 1), nil }}

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

// readNodeFile reads the subset of the sift node file the converter writes
// ({"nodes":[{name, extra, features, cpus, memory_mb, partitions, ...}]}).
func readNodeFile(file string) ([]index.Node, error) {
	data, err := realInventories.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var p fastjson.Parser
	doc, err := p.ParseBytes(data)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", file, err)
	}
	arr := doc.GetArray("nodes")
	nodes := make([]index.Node, len(arr))
	for i, v := range arr {
		n := &nodes[i]
		n.Name = string(v.GetStringBytes("name"))
		if e := v.Get("extra"); e != nil {
			n.Extra = e.MarshalTo(nil)
		}
		for _, f := range v.GetArray("features") {
			n.Features = append(n.Features, string(f.GetStringBytes()))
		}
		for _, f := range v.GetArray("partitions") {
			n.Partitions = append(n.Partitions, string(f.GetStringBytes()))
		}
		n.CPUs = v.GetInt("cpus")
		n.Sockets = v.GetInt("sockets")
		n.CoresPerSocket = v.GetInt("cores_per_socket")
		n.ThreadsPerCore = v.GetInt("threads_per_core")
		n.MemoryMB = v.GetUint64("memory_mb")
		n.Weight = uint32(v.GetUint("weight"))
		n.Rank = uint32(i)
	}
	return nodes, nil
}

var (
	synArch  = []string{"x86_64", "x86_64", "x86_64", "aarch64", "ppc64le"}
	synOS    = []string{"rhel8", "rhel8", "rhel9", "rhel7", "ubuntu22"}
	synFoo   = []string{"bar", "baz", "blah", "qux"}
	synA     = []float64{1.23, 1.25, 2.5, 0.5, 3}
	synFeats = []string{"cascade", "skylake", "ib", "bigmem", "gpu", "a100", "v100"}
)

// syntheticNodes generates n nodes named node0000001... from a PCG stream.
// About 1 node in 50 has no extra data and 1 in 10 lacks each optional key,
// so missing-data rules are exercised.
func syntheticNodes(n int, seed uint64) []index.Node {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	width := len(strconv.Itoa(n))
	nodes := make([]index.Node, n)
	var name []byte
	for i := range nodes {
		nd := &nodes[i]
		name = appendPadded(append(name[:0], "node"...), uint64(i+1), width)
		nd.Name = string(name)
		nd.Rank = uint32(i)
		nd.CPUs = 32 << r.IntN(3)
		nd.Sockets = 2
		nd.CoresPerSocket = nd.CPUs / 2
		nd.ThreadsPerCore = 1
		nd.MemoryMB = uint64(nd.CPUs) * 4096
		f := r.Uint64()
		for j, feat := range synFeats {
			if f>>(j*3)&7 == 0 {
				nd.Features = append(nd.Features, feat)
			}
		}
		if r.IntN(50) == 0 {
			continue
		}
		nd.Extra = syntheticExtra(r)
	}
	return nodes
}

func syntheticExtra(r *rand.Rand) []byte {
	b := make([]byte, 0, 160)
	b = append(b, '{')
	field := func(key string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"', ':')
	}
	str := func(s string) { b = strconv.AppendQuote(b, s) }
	if r.IntN(10) != 0 {
		field("a")
		b = strconv.AppendFloat(b, synA[r.IntN(len(synA))], 'g', -1, 64)
	}
	field("b")
	b = strconv.AppendBool(b, r.IntN(2) == 0)
	if r.IntN(10) != 0 {
		field("c")
		b = strconv.AppendInt(b, int64(r.IntN(9)), 10)
	}
	field("foo")
	str(synFoo[r.IntN(len(synFoo))])
	field("zed")
	b = strconv.AppendInt(b, int64(r.IntN(64)), 10)
	field("arch")
	str(synArch[r.IntN(len(synArch))])
	if r.IntN(4) == 0 {
		field("gpu_mem_gb")
		b = strconv.AppendInt(b, int64(16<<r.IntN(3)), 10)
	}
	field("ib")
	b = strconv.AppendBool(b, r.IntN(3) != 0)
	field("rack")
	b = strconv.AppendInt(b, int64(r.IntN(64)), 10)
	if r.IntN(10) != 0 {
		field("os")
		str(synOS[r.IntN(len(synOS))])
	}
	return append(b, '}')
}
