package inventory

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/nodesift/sift/index"
)

// nodeClass is one kind of node in the synthetic cluster.
type nodeClass struct {
	percent                 int // share of the cluster
	arch                    string
	sockets, cores, threads int
	memoryMB                [2]uint64 // the two memory sizes of the class, equally likely
	ibPercent               int
	gres                    []index.Gres
	gpuMemGB                [2]int // zero for nodes without GPUs
	weight                  uint32
	partitions              []string
	features, featuresIB    []string
}

// classes are the synthetic cluster's node kinds; percents sum to 100.
var classes = []nodeClass{
	{percent: 65, arch: "cascadelake", sockets: 2, cores: 24, threads: 2, memoryMB: [2]uint64{192000, 384000},
		ibPercent: 85, weight: 10, partitions: []string{"compute"},
		features: []string{"cascade"}, featuresIB: []string{"cascade", "ib"}},
	{percent: 15, arch: "skylake", sockets: 2, cores: 20, threads: 1, memoryMB: [2]uint64{96000, 192000},
		ibPercent: 60, weight: 5, partitions: []string{"compute"},
		features: []string{"skylake"}, featuresIB: []string{"skylake", "ib"}},
	{percent: 10, arch: "zen3", sockets: 2, cores: 32, threads: 1, memoryMB: [2]uint64{512000, 1024000},
		ibPercent: 100, gres: []index.Gres{{Name: "gpu", Type: "a100", Count: 4}}, gpuMemGB: [2]int{40, 80},
		weight: 50, partitions: []string{"gpu"},
		features: []string{"gpu", "a100"}, featuresIB: []string{"gpu", "a100", "ib"}},
	{percent: 5, arch: "skylake", sockets: 2, cores: 20, threads: 1, memoryMB: [2]uint64{384000, 384000},
		ibPercent: 80, gres: []index.Gres{{Name: "gpu", Type: "v100", Count: 2}}, gpuMemGB: [2]int{16, 32},
		weight: 40, partitions: []string{"gpu"},
		features: []string{"gpu", "v100", "skylake"}, featuresIB: []string{"gpu", "v100", "skylake", "ib"}},
	{percent: 5, arch: "cascadelake", sockets: 4, cores: 24, threads: 1, memoryMB: [2]uint64{1536000, 3072000},
		ibPercent: 100, weight: 100, partitions: []string{"bigmem"},
		features: []string{"cascade", "bigmem"}, featuresIB: []string{"cascade", "bigmem", "ib"}},
}

var (
	aValues   = []string{"1.23", "1.25", "2.5", "0.5", "1", "3.75"}
	fooValues = []string{"bar", "bar", "bar", "bar", "baz", "baz", "blah", "blah", "qux", "quux"}
	// fooValues is weighted by repetition: bar 40%, baz 20%, blah 20%, qux 10%, quux 10%.
)

// Synthetic returns a deterministic synthetic cluster of n nodes named
// node00001, node00002, ... (at least five digits); the same (n, seed)
// always gives the same cluster, and the data of its first nodes does not
// depend on n (only the width of the names does).
// The README documents the distributions. Nodes share their Features,
// Partitions and Gres slices: callers must not modify them.
func Synthetic(n int, seed uint64) []index.Node {
	if n <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed5eed5eed5eed))
	width := max(5, len(strconv.Itoa(n)))
	nameLen := len("node") + width
	nodes := make([]index.Node, n)
	// Every name has the same length, so all of them live in one string.
	var names strings.Builder
	names.Grow(n * nameLen)
	// Extra texts are copied into 1 MiB chunks: no over-allocation beyond
	// the last chunk and no per-node allocation.
	var chunk, extra []byte
	var digits [20]byte
	for i := range nodes {
		nd := &nodes[i]
		names.WriteString("node")
		num := strconv.AppendUint(digits[:0], uint64(i+1), 10)
		for k := len(num); k < width; k++ {
			names.WriteByte('0')
		}
		names.Write(num)

		cls := pickClass(rng.IntN(100))
		ib := rng.IntN(100) < cls.ibPercent
		nd.Rank = uint32(i)
		nd.Sockets, nd.CoresPerSocket, nd.ThreadsPerCore = cls.sockets, cls.cores, cls.threads
		nd.CPUs = cls.sockets * cls.cores * cls.threads
		nd.Boards = 1
		nd.MemoryMB = cls.memoryMB[rng.IntN(2)]
		nd.Gres = cls.gres
		nd.Weight = cls.weight
		nd.Partitions = cls.partitions
		nd.Features = cls.features
		if ib {
			nd.Features = cls.featuresIB
		}
		nd.State = pickState(rng.IntN(100))

		// Half a percent of nodes were started without --extra.
		if rng.IntN(200) == 0 {
			continue
		}
		extra = append(extra[:0], '{')
		if rng.IntN(100) >= 5 {
			extra = append(extra, `"a":`...)
			extra = append(extra, aValues[rng.IntN(len(aValues))]...)
			extra = append(extra, ',')
		}
		if r := rng.IntN(100); r < 90 {
			extra = append(extra, `"b":`...)
			extra = strconv.AppendBool(extra, r < 54)
			extra = append(extra, ',')
		}
		c := rng.IntN(9)
		if rng.IntN(100) < 2 {
			// A numeric-looking string: in Slurm the node's JSON type decides.
			extra = append(extra, `"c":"`...)
			extra = strconv.AppendInt(extra, int64(c), 10)
			extra = append(extra, `",`...)
		} else {
			extra = append(extra, `"c":`...)
			extra = strconv.AppendInt(extra, int64(c), 10)
			extra = append(extra, ',')
		}
		if rng.IntN(100) >= 15 {
			extra = append(extra, `"foo":"`...)
			extra = append(extra, fooValues[rng.IntN(len(fooValues))]...)
			extra = append(extra, `",`...)
		}
		extra = append(extra, `"zed":`...)
		extra = strconv.AppendInt(extra, int64(rng.IntN(64)), 10)
		extra = append(extra, `,"arch":"`...)
		extra = append(extra, cls.arch...)
		extra = append(extra, `","os":"`...)
		switch r := rng.IntN(100); {
		case r < 70:
			extra = append(extra, "rhel8"...)
		case r < 95:
			extra = append(extra, "rhel9"...)
		default:
			extra = append(extra, "rocky9"...)
		}
		extra = append(extra, `","rack":`...)
		extra = strconv.AppendInt(extra, int64(i/32+1), 10)
		extra = append(extra, `,"ib":`...)
		extra = strconv.AppendBool(extra, ib)
		if cls.gpuMemGB[0] != 0 {
			extra = append(extra, `,"gpu_mem_gb":`...)
			extra = strconv.AppendInt(extra, int64(cls.gpuMemGB[rng.IntN(2)]), 10)
		}
		if rng.IntN(100) == 0 {
			// A null value: usable by no comparison, != included.
			extra = append(extra, `,"maint":null`...)
		}
		extra = append(extra, '}')
		if len(chunk)+len(extra) > cap(chunk) {
			chunk = make([]byte, 0, max(min(1<<20, n*128), len(extra)))
		}
		start := len(chunk)
		chunk = append(chunk, extra...)
		nd.Extra = chunk[start:len(chunk):len(chunk)]
	}
	all := names.String()
	for i := range nodes {
		nodes[i].Name = all[i*nameLen : (i+1)*nameLen]
	}
	return nodes
}

func pickClass(r int) *nodeClass {
	for i := range classes {
		if r < classes[i].percent {
			return &classes[i]
		}
		r -= classes[i].percent
	}
	return &classes[0]
}

func pickState(r int) string {
	switch {
	case r < 90:
		return "idle"
	case r < 95:
		return "mixed"
	case r < 97:
		return "allocated"
	case r < 98:
		return "down"
	case r < 99:
		return "drain"
	default:
		return "draining"
	}
}
