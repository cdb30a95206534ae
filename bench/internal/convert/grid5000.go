package convert

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/nodesift/sift/index"
)

// g5kNode is the part of a Grid'5000 reference node description the
// converter reads: hardware only (the files also carry real hostnames and
// addresses, which are not copied).
type g5kNode struct {
	Architecture struct {
		Cores    int    `json:"nb_cores"`
		Procs    int    `json:"nb_procs"`
		Threads  int    `json:"nb_threads"`
		Platform string `json:"platform_type"`
	} `json:"architecture"`
	Processor struct {
		Vendor     string  `json:"vendor"`
		Microarch  string  `json:"microarchitecture"`
		ClockSpeed float64 `json:"clock_speed"`
	} `json:"processor"`
	MainMemory struct {
		RAM uint64 `json:"ram_size"`
	} `json:"main_memory"`
	GPUs map[string]struct {
		Model  string  `json:"model"`
		Vendor string  `json:"vendor"`
		Memory float64 `json:"memory"`
	} `json:"gpu_devices"`
	Network []struct {
		Interface string `json:"interface"`
		Enabled   bool   `json:"enabled"`
	} `json:"network_adapters"`
	Storage []struct {
		Storage string `json:"storage"`
	} `json:"storage_devices"`
	JobTypes struct {
		Queues []string `json:"queues"`
	} `json:"supported_job_types"`
	Exotic bool `json:"exotic"`
}

// Grid5000 reads the reference-repository tarball (a .tar.gz of
// data/grid5000/sites/<site>/clusters/<cluster>/nodes/<node>.json) and returns
// one node per node file, ordered by site, cluster and file name, renamed
// g5k0001, g5k0002, ...
func Grid5000(r io.Reader) ([]index.Node, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("grid5000: %w", err)
	}
	type entry struct {
		site, cluster, file string
		n                   g5kNode
	}
	var entries []entry
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("grid5000: %w", err)
		}
		parts := strings.Split(path.Clean(h.Name), "/")
		// .../sites/<site>/clusters/<cluster>/nodes/<node>.json
		if len(parts) < 6 || parts[len(parts)-2] != "nodes" || !strings.HasSuffix(h.Name, ".json") {
			continue
		}
		var n g5kNode
		if err := json.NewDecoder(tr).Decode(&n); err != nil {
			return nil, fmt.Errorf("grid5000: %s: %w", h.Name, err)
		}
		entries = append(entries, entry{site: parts[len(parts)-5], cluster: parts[len(parts)-3], file: parts[len(parts)-1], n: n})
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.site != b.site {
			return a.site < b.site
		}
		if a.cluster != b.cluster {
			return a.cluster < b.cluster
		}
		return a.file < b.file
	})
	nodes := make([]index.Node, 0, len(entries))
	for i, e := range entries {
		nodes = append(nodes, g5kToNode(fmt.Sprintf("g5k%04d", i+1), i, e.site, e.cluster, &e.n))
	}
	return nodes, nil
}

func g5kToNode(name string, rank int, site, cluster string, n *g5kNode) index.Node {
	gpus, gpuModel, gpuMem := 0, "none", 0.0
	for _, g := range n.GPUs {
		gpus++
		gpuModel = g.Model
		gpuMem = math.Round(g.Memory/(1<<30)*10) / 10
	}
	ib, opa := false, false
	for _, a := range n.Network {
		if !a.Enabled {
			continue
		}
		switch a.Interface {
		case "InfiniBand":
			ib = true
		case "Omni-Path":
			opa = true
		}
	}
	ssd := false
	for _, s := range n.Storage {
		if s.Storage == "SSD" {
			ssd = true
		}
	}
	extra := map[string]any{
		"site":      site,
		"cluster":   cluster,
		"cores":     n.Architecture.Cores,
		"threads":   n.Architecture.Threads,
		"mem_gb":    int(n.MainMemory.RAM >> 30),
		"vendor":    n.Processor.Vendor,
		"microarch": n.Processor.Microarch,
		"clock_ghz": math.Round(n.Processor.ClockSpeed/1e7) / 100,
		"arch":      n.Architecture.Platform,
		"gpus":      gpus,
		"gpu":       gpuModel,
		"gpu_mem":   gpuMem,
		"ib":        ib,
		"opa":       opa,
		"ssd":       ssd,
		"disks":     len(n.Storage),
		"exotic":    n.Exotic,
	}
	features := append([]string(nil), n.JobTypes.Queues...)
	if ib {
		features = append(features, "ib")
	}
	if gpus > 0 {
		features = append(features, "gpu")
	}
	if n.Exotic {
		features = append(features, "exotic")
	}
	cps := 0
	if n.Architecture.Procs > 0 {
		cps = n.Architecture.Cores / n.Architecture.Procs
	}
	tpc := 0
	if n.Architecture.Cores > 0 {
		tpc = n.Architecture.Threads / n.Architecture.Cores
	}
	var gres []index.Gres
	if gpus > 0 {
		gres = []index.Gres{{Name: "gpu", Type: strings.ReplaceAll(strings.ToLower(gpuModel), " ", "_"), Count: uint64(gpus)}}
	}
	return index.Node{
		Name: name, Rank: uint32(rank), Extra: extraJSON(extra), Features: features,
		CPUs: n.Architecture.Threads, Sockets: n.Architecture.Procs, CoresPerSocket: cps, ThreadsPerCore: tpc,
		MemoryMB: n.MainMemory.RAM >> 20, Gres: gres, Partitions: []string{site},
	}
}
