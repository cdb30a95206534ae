package job

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nodesift/sift/position"
)

// SpecError is an invalid job specification; Offset is the byte of the spec
// text where the problem is.
type SpecError struct {
	position.Pos
	Msg string
}

// Error says where the spec is invalid and why.
func (e *SpecError) Error() string {
	return fmt.Sprintf("invalid job spec at byte %d: %s", e.Offset, e.Msg)
}

// jobKeys are every key a spec may hold (with their short forms).
var jobKeys = map[string]bool{
	"id": true, "nodes": true, "N": true, "ntasks": true, "n": true, "cpus-per-task": true, "c": true,
	"ntasks-per-node": true, "ntasks-per-core": true, "ntasks-per-socket": true, "sockets-per-node": true, "cores-per-socket": true, "threads-per-core": true, "mem": true, "mem-per-cpu": true, "gpus-per-node": true, "gpus": true,
	"contiguous": true, "exclusive": true, "oversubscribe": true, "preemptable": true, "nodelist": true,
	"w": true, "exclude": true, "x": true, "time": true, "t": true, "partition": true, "p": true,
	"priority": true, "distribution": true, "m": true, "extra": true, "requires": true, "jobspec": true,
}

// constraintKeys hold constraint texts, which may contain commas.
var constraintKeys = map[string]bool{"extra": true, "requires": true, "jobspec": true}

// flags are the keys that may stand alone (meaning true); any other segment
// without '=' continues the previous value, so node lists keep their commas.
var flags = map[string]bool{"contiguous": true, "exclusive": true, "oversubscribe": true, "preemptable": true}

// ParseSpec reads a job request written as comma-separated key=value pairs,
// for example `nodes=4,ntasks=128,mem-per-cpu=2G,gpus-per-node=2,time=1:00:00`.
// Keys: id, nodes (N or MIN-MAX), ntasks, cpus-per-task, ntasks-per-node,
// ntasks-per-core, ntasks-per-socket, sockets-per-node, cores-per-socket,
// threads-per-core,
// mem, mem-per-cpu (Slurm sizes: MB by default, suffixes K M G T),
// gpus-per-node and gpus ([type:]count), contiguous, exclusive,
// oversubscribe, preemptable (flags, or =yes/no), nodelist, exclude, time
// (Slurm time formats), partition, priority, distribution (block or cyclic),
// extra (a Slurm constraint), requires (a Flux --requires constraint) and
// jobspec (a Flux RFC 31 constraint), each at most once. Commas inside
// brackets, braces, parentheses or quotes do not split, and a constraint
// keeps the items after it that are not job keys, so extra=a=1,b=2 is the
// Slurm constraint a=1,b=2. A value wholly in double quotes loses them.
func ParseSpec(s string) (*Request, error) {
	r := &Request{}
	type seg struct {
		key, val  string
		off, voff int
	}
	var segs []seg
	start, depth := 0, 0
	var quote byte
	flush := func(end int) error {
		text := s[start:end]
		eq := strings.IndexByte(text, '=')
		if eq < 0 {
			k := strings.TrimSpace(text)
			if k == "" {
				return &SpecError{position.Pos{Offset: start}, "empty item; expected key=value"}
			}
			if flags[k] {
				segs = append(segs, seg{k, "", start, end})
				return nil
			}
			if len(segs) == 0 || flags[segs[len(segs)-1].key] && segs[len(segs)-1].val == "" {
				return &SpecError{position.Pos{Offset: start}, fmt.Sprintf("%q is not key=value", position.Clip(k))}
			}
			segs[len(segs)-1].val += "," + text
			return nil
		}
		key := strings.TrimSpace(text[:eq])
		if n := len(segs); n > 0 && constraintKeys[segs[n-1].key] && !jobKeys[key] {
			segs[n-1].val += "," + text
			return nil
		}
		segs = append(segs, seg{key, text[eq+1:], start, start + eq + 1})
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			if depth > 0 {
				depth--
			}
		case c == ',' && depth == 0:
			if err := flush(i); err != nil {
				return nil, err
			}
			start = i + 1
		}
	}
	if strings.TrimSpace(s) == "" {
		return nil, &SpecError{position.Pos{Offset: 0}, "empty job spec; expected key=value pairs"}
	}
	if err := flush(len(s)); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	memOff, npcOff := 0, 0
	for _, g := range segs {
		if g.key == "mem" || g.key == "mem-per-cpu" {
			memOff = g.off
		}
		if g.key == "ntasks-per-core" {
			npcOff = g.off
		}
		if seen[g.key] {
			return nil, &SpecError{position.Pos{Offset: g.off}, fmt.Sprintf("duplicate key %q", position.Clip(g.key))}
		}
		seen[g.key] = true
		val := g.val
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' && !strings.Contains(val[1:len(val)-1], `"`) {
			val = val[1 : len(val)-1]
		}
		if err := r.set(g.key, val, g.voff); err != nil {
			return nil, err
		}
	}
	if seen["mem"] && seen["mem-per-cpu"] {
		return nil, &SpecError{position.Pos{Offset: memOff}, "mem and mem-per-cpu are mutually exclusive"}
	}
	if r.ThreadsPerCore > 0 && r.NTasksPerCore > r.ThreadsPerCore {
		// sbatch refuses this itself (opt.c _opt_verify).
		return nil, &SpecError{position.Pos{Offset: npcOff}, "ntasks-per-core can not be bigger than threads-per-core"}
	}
	r.impliedTasks(seen["nodes"] || seen["N"])
	if (seen["nodes"] || seen["N"]) && r.NTasks > 0 {
		// sbatch (opt.c _opt_verify): no more nodes than tasks.
		if r.NTasks < r.MaxNodes {
			r.MaxNodes = r.NTasks
			r.ReqNodes = min(r.ReqNodes, r.NTasks)
		}
		if r.NTasks < r.MinNodes {
			r.MinNodes, r.MaxNodes, r.ReqNodes = r.NTasks, r.NTasks, r.NTasks
		}
	}
	return r, nil
}

// impliedTasks is sbatch's task count for a fixed node count without
// ntasks or ntasks-per-node (opt.c _opt_verify): a task per requested
// socket x core x thread on each node, when any of those is given.
func (r *Request) impliedTasks(nodesSet bool) {
	if !nodesSet || r.MinNodes != r.MaxNodes || r.NTasks > 0 || r.NTasksPerNode > 0 {
		return
	}
	n, set := max(r.MinNodes, 1), false
	for _, f := range []int{r.SocketsPerNode, r.CoresPerSocket, r.ThreadsPerCore} {
		if f > 0 {
			n, set = min(n*f, 1<<24), true
		}
	}
	if set {
		r.NTasks = n
	}
}

func (r *Request) set(key, val string, off int) error {
	bad := func(msg string) error { return &SpecError{position.Pos{Offset: off}, fmt.Sprintf("%s: %s", key, msg)} }
	count := func(dst *int) error {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 1<<24 {
			return bad("expected a count from 0 to 16777216")
		}
		*dst = n
		return nil
	}
	flag := func(dst *bool) error {
		switch strings.ToLower(val) {
		case "", "yes", "true", "1":
			*dst = true
		case "no", "false", "0":
			*dst = false
		default:
			return bad("expected yes or no")
		}
		return nil
	}
	switch key {
	case "id":
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return bad("expected a job id")
		}
		r.ID = uint32(n)
	case "nodes", "N":
		lo, hi, ok := strings.Cut(val, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 || a > 1<<24 {
			return bad("expected N or MIN-MAX with N >= 1")
		}
		b := a
		if ok {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > 1<<24 {
				return bad("expected MIN-MAX with MAX >= MIN")
			}
		}
		r.MinNodes, r.MaxNodes, r.ReqNodes = a, b, b
	case "ntasks", "n":
		return count(&r.NTasks)
	case "cpus-per-task", "c":
		return count(&r.CPUsPerTask)
	case "ntasks-per-node":
		return count(&r.NTasksPerNode)
	case "ntasks-per-core":
		return count(&r.NTasksPerCore)
	case "ntasks-per-socket":
		return count(&r.NTasksPerSocket)
	case "sockets-per-node":
		return count(&r.SocketsPerNode)
	case "cores-per-socket":
		return count(&r.CoresPerSocket)
	case "threads-per-core":
		return count(&r.ThreadsPerCore)
	case "mem":
		mb, err := ParseMemory(val)
		if err != nil {
			return bad(err.Error())
		}
		r.MemPerNode, r.MemPerNodeSet = mb, true
	case "mem-per-cpu":
		mb, err := ParseMemory(val)
		if err != nil {
			return bad(err.Error())
		}
		r.MemPerCPU = mb
	case "gpus-per-node", "gpus":
		typ, n := "", val
		if i := strings.LastIndexByte(val, ':'); i >= 0 {
			typ, n = val[:i], val[i+1:]
		}
		if typ != "" && r.GPUType != "" && typ != r.GPUType {
			return bad("a different GPU type was already given")
		}
		dst := &r.GPUsPerNode
		if key == "gpus" {
			dst = &r.GPUsPerJob
		}
		val = n
		if err := count(dst); err != nil {
			return err
		}
		if typ != "" {
			r.GPUType = typ
		}
	case "contiguous":
		return flag(&r.Contiguous)
	case "exclusive":
		return flag(&r.Exclusive)
	case "oversubscribe":
		return flag(&r.OverSubscribe)
	case "preemptable":
		return flag(&r.Preemptable)
	case "nodelist", "w":
		r.Required = val
	case "exclude", "x":
		r.Excluded = val
	case "time", "t":
		d, err := ParseTime(val)
		if err != nil {
			return bad(err.Error())
		}
		r.TimeLimit = d
	case "partition", "p":
		r.Partition = val
	case "priority":
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return bad("expected a priority from 0 to 4294967295")
		}
		r.Priority = uint32(n)
	case "distribution", "m":
		if !r.parseDistribution(val) {
			return bad("expected a Slurm distribution: block|cyclic|arbitrary|plane=N, then optionally :block|cyclic|fcyclic")
		}
	case "extra", "requires", "jobspec":
		r.Constraints = append(r.Constraints, Constraint{Lang: map[string]string{"extra": "slurm", "requires": "requires", "jobspec": "flux"}[key], Text: val})
	default:
		return &SpecError{position.Pos{Offset: off - len(key) - 1}, fmt.Sprintf("unknown key %q; expected one of id, nodes, ntasks, cpus-per-task, ntasks-per-node, ntasks-per-core, ntasks-per-socket, sockets-per-node, cores-per-socket, threads-per-core, mem, mem-per-cpu, gpus-per-node, gpus, contiguous, exclusive, oversubscribe, preemptable, nodelist, exclude, time, partition, priority, distribution, extra, requires, jobspec", position.Clip(key))}
	}
	return nil
}

// ParseMemory reads a Slurm memory size in MB: an integer with an optional
// suffix K (rounded up to whole MB), M, G or T, in powers of 1024.
func ParseMemory(s string) (uint64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("expected a size such as 512, 2G or 1T")
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q out of range", position.Clip(s))
	}
	const maxMB = 1 << 42
	var mul uint64
	switch strings.ToUpper(s[i:]) {
	case "", "M":
		mul = 1
	case "K":
		return (n + 1023) / 1024, nil
	case "G":
		mul = 1 << 10
	case "T":
		mul = 1 << 20
	default:
		return 0, fmt.Errorf("unknown size suffix %q; expected K, M, G or T", position.Clip(s[i:]))
	}
	if n > maxMB/mul {
		return 0, fmt.Errorf("size %q out of range", position.Clip(s))
	}
	return n * mul, nil
}

// ParseTime reads a Slurm time limit: min, min:sec, h:m:s, d-h, d-h:m,
// d-h:m:s, or UNLIMITED/INFINITE/-1 (Unlimited). Like Slurm it keeps whole
// minutes, rounding seconds up.
func ParseTime(s string) (time.Duration, error) {
	d, err := ParseTimeSeconds(s)
	if err != nil || d == Unlimited {
		return d, err
	}
	// Job time limits are whole minutes, rounded up (time_str2mins).
	return (d + time.Minute - time.Second) / time.Minute * time.Minute, nil
}

// ParseTimeSeconds reads a Slurm time value to the second, as
// time_str2secs does (PreemptExemptTime, GraceTime): the formats of
// ParseTime, without the rounding to minutes.
func ParseTimeSeconds(s string) (time.Duration, error) {
	switch strings.ToUpper(s) {
	case "-1", "INFINITE", "UNLIMITED":
		return Unlimited, nil
	}
	errFmt := fmt.Errorf("expected min, min:sec, h:m:s, d-h, d-h:m, d-h:m:s or UNLIMITED")
	days, rest, dash := strings.Cut(s, "-")
	if !dash {
		rest, days = s, ""
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return 0, errFmt
	}
	nums := make([]int64, 0, 4)
	for _, p := range append([]string{days}, parts...)[btoi(!dash):] {
		if p == "" || len(p) > 9 {
			return 0, errFmt
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, errFmt
		}
		nums = append(nums, n)
	}
	var secs int64
	if dash {
		secs = nums[0] * 86400
		mult := []int64{3600, 60, 1}
		for i, n := range nums[1:] {
			secs += n * mult[i]
		}
	} else {
		switch len(nums) {
		case 1:
			secs = nums[0] * 60
		case 2:
			secs = nums[0]*60 + nums[1]
		case 3:
			secs = nums[0]*3600 + nums[1]*60 + nums[2]
		}
	}
	return time.Duration(secs) * time.Second, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseDistribution reads Slurm's -m value: the node distribution (block,
// cyclic, arbitrary, plane=N or *), then optionally the core distribution
// (block, cyclic, fcyclic or *) and a third field that selection ignores.
func (r *Request) parseDistribution(val string) bool {
	fields := strings.Split(val, ":")
	if len(fields) > 3 {
		return false
	}
	node := fields[0]
	switch {
	case node == "block", node == "cyclic", node == "arbitrary", node == "*":
	case strings.HasPrefix(node, "plane="):
		n, err := strconv.Atoi(node[len("plane="):])
		if err != nil || n < 1 || n > 1<<16 {
			return false
		}
		r.PlaneSize = n
	default:
		return false
	}
	if len(fields) > 1 {
		switch fields[1] {
		case "block":
			r.Distribution, r.CoreDistSet = Block, true
		case "cyclic", "fcyclic":
			r.Distribution, r.CoreDistSet = Cyclic, true
		case "*":
		default:
			return false
		}
	}
	if len(fields) > 2 && fields[2] != "pack" && fields[2] != "nopack" && fields[2] != "*" {
		return false
	}
	return true
}
