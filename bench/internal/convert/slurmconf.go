package convert

import (
	"os"
	"strings"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
)

// SlurmConf reads a slurm.conf with the inventory package and gives each node
// extra data derived from its hardware, so extra-constraint suites have real
// values to filter on. Nodes come in slurmctld's node order.
func SlurmConf(name string, text []byte) ([]index.Node, error) {
	c, _, err := inventory.ParseSlurmConf(name, text, os.ReadFile)
	if err != nil {
		return nil, err
	}
	for i := range c.Nodes {
		c.Nodes[i].Extra = extraJSON(slurmExtra(&c.Nodes[i]))
	}
	return c.Nodes, nil
}

// slurmExtra is the extra data a site would publish for a slurm.conf node:
// its hardware, as numbers, strings and booleans.
func slurmExtra(n *index.Node) map[string]any {
	gpus, gpuType := uint64(0), "none"
	for _, g := range n.Gres {
		if g.Name == "gpu" && g.Type != "" {
			gpus, gpuType = g.Count, g.Type
		}
	}
	arch := "broadwell"
	if len(n.Features) > 0 {
		arch = n.Features[0]
	}
	rack := n.Name
	if i := strings.IndexByte(rack, 'i'); i > 0 {
		rack = rack[:i]
	}
	return map[string]any{
		"cpus":   n.CPUs,
		"mem_gb": float64(n.MemoryMB) / 1024,
		"gpus":   gpus,
		"gpu":    gpuType,
		"arch":   arch,
		"edgen":  n.Weight == 1000,
		"rack":   rack,
	}
}
