package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
)

// Partition is one Slurm partition as slurm.conf configures it.
type Partition struct {
	Name string `json:"name"`
	// Nodes are the partition's node names in node order.
	Nodes   []string `json:"nodes"`
	Default bool     `json:"default,omitempty"`
	// MaxTime and DefaultTime are in minutes; -1 means UNLIMITED, and a
	// DefaultTime of -1 also stands for "not set".
	MaxTime      int64  `json:"max_time"`
	DefaultTime  int64  `json:"default_time"`
	PriorityTier uint32 `json:"priority_tier"`
	// PriorityJobFactor is the partition's factor for
	// priority/multifactor (nil: not set, Slurm's default 1).
	PriorityJobFactor *uint32 `json:"priority_job_factor,omitempty"`
	OverSubscribe     string  `json:"oversubscribe"`
	QOS               string  `json:"qos,omitempty"`
	// TRESBillingWeights is the partition's, as written.
	TRESBillingWeights string   `json:"tres_billing_weights,omitempty"`
	AllowQoS           []string `json:"allow_qos,omitempty"`
	DefMemPerCPU       uint64   `json:"def_mem_per_cpu,omitempty"`
	MaxMemPerCPU       uint64   `json:"max_mem_per_cpu,omitempty"`
	State              string   `json:"state"`
	Hidden             bool     `json:"hidden,omitempty"`
	// MinNodes and MaxNodes are MinNodes= and MaxNodes= (0: none).
	MinNodes uint32 `json:"min_nodes,omitempty"`
	MaxNodes uint32 `json:"max_nodes,omitempty"`
	// PreemptMode is PreemptMode= as written (empty: the cluster's);
	// GraceTime is GraceTime= in seconds.
	PreemptMode string `json:"preempt_mode,omitempty"`
	GraceTime   uint64 `json:"grace_time,omitempty"`
}

// Cluster is an inventory with the partitions that group its nodes.
type Cluster struct {
	Nodes      []index.Node `json:"nodes"`
	Partitions []Partition  `json:"partitions,omitempty"`
	// ExtraConstraints reports whether SchedulerParameters enables Slurm's
	// extra_constraints (a case-insensitive substring test, as slurmctld's).
	ExtraConstraints bool `json:"extra_constraints,omitempty"`
	// SelectType and SelectTypeParameters are slurm.conf's, as written;
	// DefMemPerCPU and MaxMemPerCPU its cluster-wide memory defaults (MB).
	SelectType           string `json:"select_type,omitempty"`
	SelectTypeParameters string `json:"select_type_parameters,omitempty"`
	DefMemPerCPU         uint64 `json:"def_mem_per_cpu,omitempty"`
	MaxMemPerCPU         uint64 `json:"max_mem_per_cpu,omitempty"`
	// SchedulerParameters is slurm.conf's, as written.
	SchedulerParameters string `json:"scheduler_parameters,omitempty"`
	// Preempt holds the preemption keys as written (PreemptType,
	// PreemptMode, PreemptExemptTime, PreemptParameters, KillWait,
	// MessageTimeout), by lower-case key.
	Preempt map[string]string `json:"preempt,omitempty"`
	// Priority holds the priority plugin's keys as written (PriorityType,
	// PriorityWeight*, PriorityFlags, ..., FairShareDampeningFactor and
	// AccountingStorageEnforce), by lower-case key, for [priority].
	Priority map[string]string `json:"priority,omitempty"`
}

// maxIncludeDepth bounds Include nesting, so an Include cycle fails cleanly.
const maxIncludeDepth = 16

// ReadSlurmConf reads a slurm.conf file and the files it includes.
func ReadSlurmConf(path string) (*Cluster, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return ParseSlurmConf(path, data, os.ReadFile)
}

// ParseSlurmConf parses slurm.conf text. name is used in messages and to
// resolve relative Include paths; readFile reads included files.
func ParseSlurmConf(name string, data []byte, readFile func(string) ([]byte, error)) (*Cluster, []Warning, error) {
	return parseSlurmConf(name, data, readFile, DefaultLimits())
}

func parseSlurmConf(name string, data []byte, readFile func(string) ([]byte, error), lim Limits) (*Cluster, []Warning, error) {
	lim = lim.orDefault()
	p := &confParser{readFile: readFile, nodeDefault: map[string]confValue{}, partDefault: map[string]confValue{}, lim: lim}
	if err := p.parseFile(name, data, 0); err != nil {
		return nil, p.warnings, err
	}
	c, err := p.build()
	return c, p.warnings, err
}

// confValue is one key's value with where it was written.
type confValue struct {
	key   string // as written
	value string
	file  string
	line  int
}

type confLine struct {
	file string
	line int
	kv   []confValue // kv[0] is NodeName=/PartitionName=
	defs map[string]confValue
}

type confParser struct {
	readFile    func(string) ([]byte, error)
	warnings    []Warning
	nodeDefault map[string]confValue
	partDefault map[string]confValue
	nodeLines   []confLine
	partLines   []confLine
	extra       bool
	globals     map[string]string // lower-case key -> value of other settings
	lim         Limits
}

func (p *confParser) warn(file string, line int, format string, args ...any) {
	p.warnings = append(p.warnings, Warning{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *confParser) parseFile(name string, data []byte, depth int) error {
	lines := joinContinuations(data)
	for _, ln := range lines {
		text := strings.TrimSpace(stripComment(ln.text))
		if text == "" {
			continue
		}
		if kw, rest, ok := cutWord(text); ok && strings.EqualFold(kw, "include") {
			if err := p.include(name, ln.num, strings.TrimSpace(rest), depth); err != nil {
				return err
			}
			continue
		}
		kv, err := splitPairs(text)
		if err != nil {
			return &Error{File: name, Line: ln.num, Msg: err.Error()}
		}
		for i := range kv {
			kv[i].file, kv[i].line = name, ln.num
		}
		first := strings.ToLower(kv[0].key)
		switch first {
		case "nodename":
			if strings.EqualFold(kv[0].value, "DEFAULT") {
				p.setDefaults(p.nodeDefault, kv[1:], nodeKeys)
				continue
			}
			p.nodeLines = append(p.nodeLines, confLine{file: name, line: ln.num, kv: kv, defs: clone(p.nodeDefault)})
		case "partitionname":
			if strings.EqualFold(kv[0].value, "DEFAULT") {
				p.setDefaults(p.partDefault, kv[1:], partKeys)
				continue
			}
			p.partLines = append(p.partLines, confLine{file: name, line: ln.num, kv: kv, defs: clone(p.partDefault)})
		default:
			for _, v := range kv {
				if strings.EqualFold(v.key, "SchedulerParameters") {
					p.extra = strings.Contains(strings.ToLower(v.value), "extra_constraints")
				}
				if p.globals == nil {
					p.globals = map[string]string{}
				}
				p.globals[strings.ToLower(v.key)] = v.value
			}
		}
	}
	return nil
}

func clone(m map[string]confValue) map[string]confValue {
	c := make(map[string]confValue, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (p *confParser) setDefaults(defs map[string]confValue, kv []confValue, known map[string]bool) {
	for _, v := range kv {
		k := strings.ToLower(v.key)
		if !known[k] {
			p.warn(v.file, v.line, "unknown key %q ignored", v.key)
			continue
		}
		defs[k] = v
	}
}

func (p *confParser) include(from string, line int, pattern string, depth int) error {
	if depth >= maxIncludeDepth {
		return &Error{File: from, Line: line, Msg: "include nested too deeply (a cycle?)"}
	}
	if pattern == "" {
		return &Error{File: from, Line: line, Msg: "include without a file name"}
	}
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(filepath.Dir(from), pattern)
	}
	names := []string{pattern}
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return &Error{File: from, Line: line, Msg: "include " + pattern, Err: err}
		}
		names = m
	}
	for _, n := range names {
		data, err := p.readFile(n)
		if err != nil {
			return &Error{File: from, Line: line, Msg: "include", Err: err}
		}
		if err := p.parseFile(n, data, depth+1); err != nil {
			return err
		}
	}
	return nil
}

type rawLine struct {
	num  int
	text string
}

// joinContinuations splits data into lines, joining a line that ends in a
// backslash with the next one; each joined line keeps its first line number.
func joinContinuations(data []byte) []rawLine {
	var out []rawLine
	var cur strings.Builder
	start := 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimRight(string(l), "\r")
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(s, "\\") && !strings.HasSuffix(s, "\\\\") {
			cur.WriteString(s[:len(s)-1])
			continue
		}
		cur.WriteString(s)
		out = append(out, rawLine{num: start, text: cur.String()})
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, rawLine{num: start, text: cur.String()})
	}
	return out
}

// stripComment removes a comment: '#' up to the end of the line, unless the
// '#' is escaped as "\#" (which stands for a literal '#').
func stripComment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && s[i+1] == '#' {
			b.WriteByte('#')
			i++
			continue
		}
		if c == '#' {
			break
		}
		b.WriteByte(c)
	}
	return b.String()
}

func cutWord(s string) (word, rest string, ok bool) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i:], true
}

// splitPairs reads `Key=Value` pairs separated by whitespace; a value may be
// double-quoted to hold spaces.
func splitPairs(s string) ([]confValue, error) {
	var out []confValue
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		k := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[k:i]
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return nil, fmt.Errorf("expected Key=Value, found %q", position.Clip(key))
		}
		if key == "" {
			return nil, errors.New("expected a key before '='")
		}
		i++
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var val string
		if i < len(s) && s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("%s: unterminated quoted value", key)
			}
			val = s[i+1 : i+1+end]
			i += end + 2
		} else {
			v := i
			for i < len(s) && s[i] != ' ' && s[i] != '\t' {
				i++
			}
			val = s[v:i]
		}
		out = append(out, confValue{key: key, value: val})
	}
	if len(out) == 0 {
		return nil, errors.New("expected Key=Value")
	}
	return out, nil
}

var nodeKeys = setOf("nodename", "nodehostname", "nodeaddr", "bcastaddr", "boards", "corespeccount",
	"corespersocket", "cpubind", "cpus", "cpuspeclist", "features", "feature", "gres", "memspeclimit",
	"port", "procs", "realmemory", "reason", "sockets", "socketsperboard", "state", "threadspercore",
	"tmpdisk", "topology", "tresweights", "weight", "parameters", "restrictedcorespergpu")

var partKeys = setOf("partitionname", "allocnodes", "allowaccounts", "allowgroups", "allowqos", "alternate",
	"cpubind", "default", "defaulttime", "defcpupergpu", "defmempercpu", "defmempergpu", "defmempernode",
	"denyaccounts", "denyqos", "disablerootjobs", "exclusiveuser", "exclusivetopo", "gracetime", "hidden",
	"lln", "maxcpuspernode", "maxcpuspersocket", "maxmempercpu", "maxmempernode", "maxnodes", "maxtime",
	"minnodes", "nodes", "oversubscribe", "overtimelimit", "powerdownonidle", "preemptmode",
	"priorityjobfactor", "prioritytier", "qos", "reqresv", "resumetimeout", "rootonly",
	"selecttypeparameters", "shared", "state", "suspendtime", "suspendtimeout", "tresbillingweights")

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// lineValues merges a line's keys over the defaults in force when it was
// read, warning about keys slurm.conf does not define for the line's kind.
func (p *confParser) lineValues(l confLine, known map[string]bool) map[string]confValue {
	vals := clone(l.defs)
	for _, v := range l.kv[1:] {
		k := strings.ToLower(v.key)
		if !known[k] {
			p.warn(v.file, v.line, "unknown key %q ignored", v.key)
			continue
		}
		if k == "feature" {
			k = "features"
		}
		if k == "procs" {
			k = "cpus"
		}
		if k == "shared" {
			k = "oversubscribe"
		}
		vals[k] = v
	}
	if v, ok := vals["feature"]; ok {
		if _, both := vals["features"]; !both {
			vals["features"] = v
		}
		delete(vals, "feature")
	}
	return vals
}

func (p *confParser) build() (*Cluster, error) {
	c := &Cluster{ExtraConstraints: p.extra, SelectType: p.globals["selecttype"], SelectTypeParameters: p.globals["selecttypeparameters"],
		SchedulerParameters: p.globals["schedulerparameters"]}
	// Unreadable memory defaults are left unset, as the other global keys
	// sift does not use are.
	for k, v := range p.globals {
		if strings.HasPrefix(k, "preempt") || k == "killwait" || k == "messagetimeout" {
			if c.Preempt == nil {
				c.Preempt = map[string]string{}
			}
			c.Preempt[k] = v
		}
		if strings.HasPrefix(k, "priority") || k == "fairsharedampeningfactor" || k == "accountingstorageenforce" {
			if c.Priority == nil {
				c.Priority = map[string]string{}
			}
			c.Priority[k] = v
		}
	}
	c.DefMemPerCPU, _ = strconv.ParseUint(p.globals["defmempercpu"], 10, 64)
	c.MaxMemPerCPU, _ = strconv.ParseUint(p.globals["maxmempercpu"], 10, 64)
	// Every line's hosts are counted, not expanded, before any node is
	// made: a few bytes of ranges can name millions of nodes.
	budget := nodeBudget{max: p.lim.MaxNodes}
	lists := make([]*hostlist.List, len(p.nodeLines))
	for i, l := range p.nodeLines {
		hl, err := parseSlurmHosts(l.kv[0])
		if err != nil {
			return nil, err
		}
		if err := budget.take(hl.Count()); err != nil {
			return nil, &Error{File: l.file, Line: l.line, Field: l.kv[0].key, Msg: "hostlist " + shorten(l.kv[0].value), Err: err}
		}
		lists[i] = hl
	}
	c.Nodes = make([]index.Node, 0, budget.used)
	seen := make(map[string]bool, budget.used)
	for i, l := range p.nodeLines {
		vals := p.lineValues(l, nodeKeys)
		tmpl, err := nodeTemplate(vals, p.lim.MaxFeatures)
		if err != nil {
			return nil, err
		}
		// The nodes of one line share its feature and GRES lists (index.Node
		// lists are read-only; clipped, so an append copies).
		tmpl.Features, tmpl.Gres = slices.Clip(tmpl.Features), slices.Clip(tmpl.Gres)
		var dup string
		lists[i].Each(func(n string) bool {
			if seen[n] {
				dup = n
				return false
			}
			seen[n] = true
			node := tmpl
			node.Name = n
			c.Nodes = append(c.Nodes, node)
			return true
		})
		if dup != "" {
			return nil, &Error{File: l.file, Line: l.line, Field: "NodeName", Msg: fmt.Sprintf("duplicate node %q", position.Clip(dup))}
		}
	}
	// slurmctld sorts its node table by name (strnatcmp) unless a topology
	// plugin ranks the nodes; node ids follow that order.
	sort.SliceStable(c.Nodes, func(i, j int) bool { return hostlist.NaturalCompare(c.Nodes[i].Name, c.Nodes[j].Name) < 0 })
	pos := make(map[string]int, len(c.Nodes))
	for i := range c.Nodes {
		c.Nodes[i].Rank = uint32(i)
		pos[c.Nodes[i].Name] = i
	}
	for _, l := range p.partLines {
		part, err := p.partition(l, c.Nodes, pos)
		if err != nil {
			return nil, err
		}
		for _, q := range c.Partitions {
			if q.Name == part.Name {
				return nil, &Error{File: l.file, Line: l.line, Field: "PartitionName", Msg: fmt.Sprintf("duplicate partition %q", position.Clip(part.Name))}
			}
		}
		if part.Default {
			for i := range c.Partitions {
				c.Partitions[i].Default = false // the last Default=YES wins, as in slurmctld
			}
		}
		for _, n := range part.Nodes {
			node := &c.Nodes[pos[n]]
			node.Partitions = append(node.Partitions, part.Name)
		}
		c.Partitions = append(c.Partitions, part)
	}
	return c, nil
}

// parseSlurmHosts parses the hostlist of a NodeName= or Nodes= value,
// refusing one of more than maxConfHosts hosts.
func parseSlurmHosts(v confValue) (*hostlist.List, error) {
	hl, err := hostlist.Parse(hostlist.Slurm, v.value)
	if err != nil {
		return nil, &Error{File: v.file, Line: v.line, Field: v.key, Msg: err.Error()}
	}
	if n := hl.Count(); n > maxConfHosts {
		return nil, &Error{File: v.file, Line: v.line, Field: v.key, Msg: "hostlist " + shorten(v.value), Err: &limitError{fmt.Sprintf("names %d hosts, more than %d in one value", n, maxConfHosts)}}
	}
	return hl, nil
}

// maxConfHosts bounds the hosts one NodeName or Nodes value may name.
const maxConfHosts = 1 << 22

// shorten returns s, or its first 40 bytes and "..." when longer, for
// naming a long value in a message.
func shorten(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "..."
}

func confErr(v confValue, format string, args ...any) error {
	return &Error{File: v.file, Line: v.line, Field: v.key, Msg: fmt.Sprintf(format, args...)}
}

func confUint(v confValue, bits int) (uint64, error) {
	n, err := strconv.ParseUint(v.value, 10, bits)
	if err != nil {
		return 0, confErr(v, "expected a non-negative integer, found %q", v.value)
	}
	return n, nil
}

// nodeTemplate computes a node line's resources as slurmctld does: missing
// counts default to 1, a missing Sockets is inferred from CPUs, and a missing
// CPUs is the product of the topology.
func nodeTemplate(vals map[string]confValue, maxFeatures int) (index.Node, error) {
	n := index.Node{State: "idle"}
	get := func(key string, def uint64) (uint64, bool, error) {
		v, ok := vals[key]
		if !ok {
			return def, false, nil
		}
		x, err := confUint(v, 32)
		return x, true, err
	}
	boards, _, err := get("boards", 1)
	if err != nil {
		return n, err
	}
	sockets, haveSockets, err := get("sockets", 0)
	if err != nil {
		return n, err
	}
	perBoard, havePerBoard, err := get("socketsperboard", 0)
	if err != nil {
		return n, err
	}
	cores, _, err := get("corespersocket", 1)
	if err != nil {
		return n, err
	}
	threads, _, err := get("threadspercore", 1)
	if err != nil {
		return n, err
	}
	cpus, haveCPUs, err := get("cpus", 0)
	if err != nil {
		return n, err
	}
	if boards == 0 {
		boards = 1
	}
	if cores == 0 {
		cores = 1
	}
	if threads == 0 {
		threads = 1
	}
	if !haveSockets && havePerBoard {
		sockets, haveSockets = boards*perBoard, true
	}
	if !haveSockets && haveCPUs {
		sockets = cpus / (cores * threads)
	}
	if sockets == 0 {
		sockets = 1
	}
	if !haveCPUs || (cpus != sockets*cores*threads && cpus != sockets*cores) {
		cpus = sockets * cores * threads
	}
	n.Boards, n.Sockets, n.CoresPerSocket, n.ThreadsPerCore, n.CPUs = int(boards), int(sockets), int(cores), int(threads), int(cpus)
	mem, _, err := get("realmemory", 1)
	if err != nil {
		return n, err
	}
	n.MemoryMB = mem
	w, _, err := get("weight", 1)
	if err != nil {
		return n, err
	}
	n.Weight = uint32(w)
	if v, ok := vals["features"]; ok {
		if k := countList(v.value); k > maxFeatures {
			return n, &Error{File: v.file, Line: v.line, Field: v.key, Msg: shorten(v.value), Err: tooMany(k, "features", maxFeatures)}
		}
		n.Features = splitList(v.value)
	}
	if v, ok := vals["gres"]; ok {
		g, err := ParseGres(v.value)
		if err != nil {
			return n, confErr(v, "%v", err)
		}
		n.Gres = g
	}
	if v, ok := vals["state"]; ok {
		s, err := nodeState(v.value)
		if err != nil {
			return n, confErr(v, "%v", err)
		}
		n.State = s
	}
	return n, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// nodeState maps a slurm.conf State= to sift's base state. UNKNOWN and
// CLOUD nodes become idle once they register, so they load as idle.
func nodeState(s string) (string, error) {
	base, _, _ := strings.Cut(strings.ToLower(s), "+")
	switch base {
	case "unknown", "idle", "cloud", "":
		return "idle", nil
	case "down", "fail", "failing", "future":
		return "down", nil
	case "drain", "drained", "draining":
		return "drain", nil
	case "mixed", "mix":
		return "mixed", nil
	case "allocated", "alloc":
		return "allocated", nil
	}
	return "", fmt.Errorf("unknown node state %q", position.Clip(s))
}

// ParseGres parses a Gres= value such as "gpu:a100:4,nic:2" (optional
// "(S:0-1)" socket bindings are ignored; counts take K/M/G/T suffixes).
func ParseGres(s string) ([]index.Gres, error) {
	var out []index.Gres
	for _, item := range splitGres(s) {
		if i := strings.IndexByte(item, '('); i >= 0 {
			item = item[:i]
		}
		g, ok := parseGres(item)
		if !ok {
			return nil, fmt.Errorf("invalid gres %q, expected name[:type][:count]", position.Clip(item))
		}
		out = append(out, g)
	}
	return out, nil
}

// splitGres splits on commas outside parentheses.
func splitGres(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				if t := strings.TrimSpace(s[start:i]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

func gresCount(s string) (uint64, error) {
	mult := uint64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid count %q", position.Clip(s))
	}
	return n * mult, nil
}
