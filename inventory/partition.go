package inventory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
)

func (p *confParser) partition(l confLine, nodes []index.Node, pos map[string]int) (Partition, error) {
	vals := p.lineValues(l, partKeys)
	part := Partition{Name: l.kv[0].value, MaxTime: -1, DefaultTime: -1, OverSubscribe: "NO", State: "UP", PriorityTier: 1}
	if v, ok := vals["nodes"]; ok {
		names, err := p.partitionNodes(v, nodes, pos)
		if err != nil {
			return part, err
		}
		part.Nodes = names
	}
	var err error
	if v, ok := vals["default"]; ok {
		if part.Default, err = confBool(v); err != nil {
			return part, err
		}
	}
	if v, ok := vals["hidden"]; ok {
		if part.Hidden, err = confBool(v); err != nil {
			return part, err
		}
	}
	if v, ok := vals["maxtime"]; ok {
		if part.MaxTime, err = confMinutes(v); err != nil {
			return part, err
		}
	}
	if v, ok := vals["defaulttime"]; ok {
		if part.DefaultTime, err = confMinutes(v); err != nil {
			return part, err
		}
	}
	if v, ok := vals["prioritytier"]; ok {
		n, err := confUint(v, 16)
		if err != nil {
			return part, err
		}
		part.PriorityTier = uint32(n)
	}
	if v, ok := vals["priorityjobfactor"]; ok {
		n, err := confUint(v, 16)
		if err != nil {
			return part, err
		}
		f := uint32(n)
		part.PriorityJobFactor = &f
	}
	if v, ok := vals["oversubscribe"]; ok {
		o, err := oversubscribe(v)
		if err != nil {
			return part, err
		}
		part.OverSubscribe = o
	}
	if v, ok := vals["qos"]; ok {
		part.QOS = v.value
	}
	if v, ok := vals["tresbillingweights"]; ok {
		part.TRESBillingWeights = v.value
	}
	if v, ok := vals["allowqos"]; ok {
		part.AllowQoS = splitList(v.value)
	}
	if v, ok := vals["defmempercpu"]; ok {
		if part.DefMemPerCPU, err = confUint(v, 64); err != nil {
			return part, err
		}
	}
	if v, ok := vals["maxmempercpu"]; ok {
		if part.MaxMemPerCPU, err = confUint(v, 64); err != nil {
			return part, err
		}
	}
	for _, f := range []struct {
		key string
		dst *uint32
	}{{"minnodes", &part.MinNodes}, {"maxnodes", &part.MaxNodes}} {
		dst := f.dst
		v, ok := vals[f.key]
		if !ok {
			continue
		}
		switch strings.ToUpper(v.value) {
		case "UNLIMITED", "INFINITE":
			*dst = 0
			continue
		}
		n, err := confUint(v, 32)
		if err != nil {
			return part, err
		}
		*dst = uint32(n)
	}
	if v, ok := vals["preemptmode"]; ok {
		part.PreemptMode = v.value
	}
	if v, ok := vals["gracetime"]; ok {
		if part.GraceTime, err = confUint(v, 32); err != nil {
			return part, err
		}
	}
	if v, ok := vals["state"]; ok {
		s := strings.ToUpper(v.value)
		switch s {
		case "UP", "DOWN", "DRAIN", "INACTIVE":
			part.State = s
		default:
			return part, confErr(v, "expected UP, DOWN, DRAIN or INACTIVE, found %q", v.value)
		}
	}
	return part, nil
}

// partitionNodes resolves a partition's Nodes= value (a hostlist, or ALL) to
// node names in node order, without duplicates, as slurmctld's partition
// bitmap does.
func (p *confParser) partitionNodes(v confValue, nodes []index.Node, pos map[string]int) ([]string, error) {
	if strings.EqualFold(v.value, "ALL") {
		out := make([]string, len(nodes))
		for i := range nodes {
			out[i] = nodes[i].Name
		}
		return out, nil
	}
	hl, err := parseSlurmHosts(v)
	if err != nil {
		return nil, err
	}
	in := make([]bool, len(nodes))
	unknown := ""
	hl.Each(func(n string) bool {
		i, ok := pos[n]
		if !ok {
			unknown = n
			return false
		}
		in[i] = true
		return true
	})
	if unknown != "" {
		return nil, confErr(v, "partition names unknown node %q", unknown)
	}
	var out []string
	for i, ok := range in {
		if ok {
			out = append(out, nodes[i].Name)
		}
	}
	return out, nil
}

func confBool(v confValue) (bool, error) {
	switch strings.ToUpper(v.value) {
	case "YES", "Y", "TRUE", "1", "ON":
		return true, nil
	case "NO", "N", "FALSE", "0", "OFF":
		return false, nil
	}
	return false, confErr(v, "expected YES or NO, found %q", v.value)
}

func oversubscribe(v confValue) (string, error) {
	s := strings.ToUpper(v.value)
	kind, count, hasCount := strings.Cut(s, ":")
	switch kind {
	case "NO", "EXCLUSIVE":
		if hasCount {
			return "", confErr(v, "%s takes no count", kind)
		}
		return kind, nil
	case "YES", "FORCE":
		if hasCount {
			if n, err := strconv.ParseUint(count, 10, 16); err != nil || n == 0 {
				return "", confErr(v, "invalid job count %q", count)
			}
		}
		return s, nil
	}
	return "", confErr(v, "expected NO, YES[:N], FORCE[:N] or EXCLUSIVE, found %q", v.value)
}

func confMinutes(v confValue) (int64, error) {
	m, err := ParseMinutes(v.value)
	if err != nil {
		return 0, confErr(v, "%v", err)
	}
	return m, nil
}

// ParseMinutes reads a Slurm time value as minutes: "UNLIMITED" or
// "INFINITE" (-1), "min", "min:sec", "hours:min:sec", "days-hours",
// "days-hours:min" or "days-hours:min:sec". Seconds round up to a minute, as
// slurmctld's time_str2mins does.
func ParseMinutes(s string) (int64, error) {
	secs, err := ParseSeconds(s)
	if err != nil || secs < 0 {
		return secs, err
	}
	return (secs + 59) / 60, nil
}

// ParseSeconds reads a Slurm time value as seconds; -1 means unlimited.
func ParseSeconds(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if u == "UNLIMITED" || u == "INFINITE" || u == "-1" {
		return -1, nil
	}
	bad := fmt.Errorf("invalid time %q (expected min, min:sec, h:m:s, d-h, d-h:m, d-h:m:s or UNLIMITED)", position.Clip(s))
	var days int64
	rest := u
	hasDays := false
	if d, r, ok := strings.Cut(u, "-"); ok {
		n, err := strconv.ParseUint(d, 10, 32)
		if err != nil {
			return 0, bad
		}
		days, rest, hasDays = int64(n), r, true
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return 0, bad
	}
	nums := make([]int64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return 0, bad
		}
		nums[i] = int64(n)
	}
	var h, m, sec int64
	switch {
	case hasDays && len(nums) == 1:
		h = nums[0]
	case hasDays && len(nums) == 2:
		h, m = nums[0], nums[1]
	case hasDays:
		h, m, sec = nums[0], nums[1], nums[2]
	case len(nums) == 1:
		m = nums[0]
	case len(nums) == 2:
		m, sec = nums[0], nums[1]
	default:
		h, m, sec = nums[0], nums[1], nums[2]
	}
	return ((days*24+h)*60+m)*60 + sec, nil
}
