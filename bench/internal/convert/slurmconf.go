package convert

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// SlurmConf reads the NodeName and PartitionName lines of a slurm.conf and
// returns its nodes in file order. Keys are case-insensitive; hostlists may
// have several bracket groups. Comment lines are skipped. Extra data is
// derived from the node's hardware so extra-constraint suites have real
// values to filter on.
func SlurmConf(text []byte) ([]Node, error) {
	var nodes []Node
	byName := map[string]int{}
	type part struct {
		name  string
		hosts []string
		all   bool
	}
	var parts []part
	sc := bufio.NewScanner(bytes.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		kv := fields(s)
		if len(kv) == 0 {
			continue
		}
		switch strings.ToLower(kv[0][0]) {
		case "nodename":
			names, err := expandHostlist(kv[0][1])
			if err != nil {
				return nil, fmt.Errorf("slurm.conf line %d: %w", line, err)
			}
			var proto Node
			for _, p := range kv[1:] {
				if err := setNodeField(&proto, p[0], p[1]); err != nil {
					return nil, fmt.Errorf("slurm.conf line %d: %w", line, err)
				}
			}
			for _, name := range names {
				n := proto
				n.Name = name
				byName[name] = len(nodes)
				nodes = append(nodes, n)
			}
		case "partitionname":
			p := part{name: kv[0][1]}
			for _, f := range kv[1:] {
				if strings.EqualFold(f[0], "nodes") {
					if strings.EqualFold(f[1], "ALL") {
						p.all = true
						continue
					}
					hosts, err := expandHostlist(f[1])
					if err != nil {
						return nil, fmt.Errorf("slurm.conf line %d: %w", line, err)
					}
					p.hosts = hosts
				}
			}
			parts = append(parts, p)
		}
	}
	for _, p := range parts {
		if p.all {
			for i := range nodes {
				nodes[i].Partitions = append(nodes[i].Partitions, p.name)
			}
			continue
		}
		for _, h := range p.hosts {
			if i, ok := byName[h]; ok {
				nodes[i].Partitions = append(nodes[i].Partitions, p.name)
			}
		}
	}
	for i := range nodes {
		nodes[i].Extra = slurmExtra(&nodes[i])
	}
	return nodes, nil
}

// slurmExtra is the extra data a site would publish for a slurm.conf node:
// its hardware, as numbers, strings and booleans.
func slurmExtra(n *Node) map[string]any {
	gpus, gpuType := 0, "none"
	for _, g := range n.Gres {
		f := strings.Split(g, ":")
		if f[0] == "gpu" && len(f) == 3 {
			gpus, _ = strconv.Atoi(f[2])
			gpuType = f[1]
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

func setNodeField(n *Node, key, val string) error {
	num := func() (int, error) {
		v, err := strconv.Atoi(val)
		if err != nil {
			return 0, fmt.Errorf("%s=%q: not an integer", key, val)
		}
		return v, nil
	}
	var err error
	var v int
	switch strings.ToLower(key) {
	case "cpus":
		n.CPUs, err = num()
	case "boards":
		n.Boards, err = num()
	case "sockets", "socketsperboard":
		n.Sockets, err = num()
	case "corespersocket":
		n.CoresPerSocket, err = num()
	case "threadspercore":
		n.ThreadsPerCore, err = num()
	case "realmemory":
		v, err = num()
		n.MemoryMB = uint64(v)
	case "weight":
		v, err = num()
		n.Weight = uint32(v)
	case "gres":
		n.Gres = strings.Split(val, ",")
	case "feature", "features":
		n.Features = strings.Split(val, ",")
	}
	return err
}

// fields splits a slurm.conf line into key=value pairs; double quotes group.
func fields(s string) [][2]string {
	var out [][2]string
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		end, quoted := 0, false
		for end < len(s) && (quoted || (s[end] != ' ' && s[end] != '\t')) {
			if s[end] == '"' {
				quoted = !quoted
			}
			end++
		}
		tok := s[:end]
		s = s[end:]
		k, v, _ := strings.Cut(tok, "=")
		out = append(out, [2]string{k, strings.Trim(v, `"`)})
	}
	return out
}

// expandHostlist expands a Slurm hostlist such as r1i7n[0-6,9-15],r2i[4-7]n[0-8].
// It is a small offline reader for the converter, not the project's hostlist
// package, which the converter may not depend on for its own correctness.
func expandHostlist(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '[':
				depth++
				continue
			case ']':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		hosts, err := expandOne(s[start:i])
		if err != nil {
			return nil, err
		}
		out = append(out, hosts...)
		start = i + 1
	}
	return out, nil
}

func expandOne(s string) ([]string, error) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return []string{s}, nil
	}
	closing := strings.IndexByte(s[open:], ']')
	if closing < 0 {
		return nil, fmt.Errorf("hostlist %q: missing ]", s)
	}
	closing += open
	rest, err := expandOne(s[closing+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(s[open+1:closing], ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || b < a {
			return nil, fmt.Errorf("hostlist %q: bad range %q", s, r)
		}
		for v := a; v <= b; v++ {
			num := strconv.Itoa(v)
			for len(num) < len(lo) {
				num = "0" + num
			}
			for _, tail := range rest {
				out = append(out, s[:open]+num+tail)
			}
		}
	}
	return out, nil
}
