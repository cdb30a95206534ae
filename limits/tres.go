package limits

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Infinite64 is Slurm's INFINITE64: a TRES limit that is not set.
const Infinite64 = math.MaxUint64

// Infinite is Slurm's INFINITE for 32-bit limits (job counts, minutes): not
// set.
const Infinite = math.MaxUint32

// NoVal is Slurm's NO_VAL: a job field the user left empty (a time limit
// not given).
const NoVal = math.MaxUint32 - 1

// Positions of the fixed TRES in every vector (slurmctld.h TRES_ARRAY_*).
const (
	TRESCPU = iota
	TRESMem
	TRESEnergy
	TRESNode
	TRESBilling
	TRESFSDisk
	TRESVMem
	TRESPages
	fixedTRES
)

var fixedNames = [fixedTRES]string{"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"}

// TRESList is the cluster's TRES: the eight fixed ones, then those of
// AccountingStorageTRES (gres/<name>[:<type>], license/<name>, bb/<name>),
// in that order. A TRES not in the list is not tracked.
type TRESList struct {
	names []string
	index map[string]int
}

// NewTRESList returns the fixed TRES followed by extra, each spelled as in
// AccountingStorageTRES ("gres/gpu", "gres/gpu:tesla", "license/matlab",
// "bb/datawarp"); the fixed names may appear and are skipped.
func NewTRESList(extra ...string) (*TRESList, error) {
	l := &TRESList{index: make(map[string]int)}
	for i, n := range fixedNames {
		l.names = append(l.names, n)
		l.index[n] = i
	}
	for _, e := range extra {
		n := strings.ToLower(strings.TrimSpace(e))
		if n == "" {
			continue
		}
		if _, ok := l.index[n]; ok {
			continue
		}
		typ, name, ok := strings.Cut(n, "/")
		if !ok || name == "" || (typ != "gres" && typ != "license" && typ != "bb" && typ != "fs" && typ != "ic") {
			return nil, fmt.Errorf("TRES %q: expected gres/NAME[:TYPE], license/NAME or bb/NAME", e)
		}
		l.index[n] = len(l.names)
		l.names = append(l.names, n)
	}
	return l, nil
}

// Len is the number of TRES, the length of every vector.
func (l *TRESList) Len() int { return len(l.names) }

// Name is the TRES at position i ("cpu", "gres/gpu:tesla").
func (l *TRESList) Name(i int) string { return l.names[i] }

// Index is the position of a TRES by name (case-insensitive).
func (l *TRESList) Index(name string) (int, bool) {
	i, ok := l.index[strings.ToLower(name)]
	return i, ok
}

// Type is the TRES type of position i: "cpu", "mem", ..., or for the
// dynamic ones "gres", "license", "bb".
func (l *TRESList) Type(i int) string {
	if i < fixedTRES {
		return l.names[i]
	}
	t, _, _ := strings.Cut(l.names[i], "/")
	return t
}

// Vector is one count per TRES of a TRESList; Infinite64 means unset.
type Vector []uint64

// NewVector returns a vector of n unset entries.
func NewVector(n int) Vector {
	v := make(Vector, n)
	v.Clear()
	return v
}

// Clear sets every entry to unset.
func (v Vector) Clear() {
	for i := range v {
		v[i] = Infinite64
	}
}

// Set reports whether any entry is set.
func (v Vector) Set() bool {
	for _, x := range v {
		if x != Infinite64 {
			return true
		}
	}
	return false
}

// Equal reports whether two vectors hold the same entries.
func (v Vector) Equal(w Vector) bool {
	if len(v) != len(w) {
		return false
	}
	for i := range v {
		if v[i] != w[i] {
			return false
		}
	}
	return true
}

// TRESError is a TRES string that does not parse; Offset is the byte where
// the bad entry starts.
type TRESError struct {
	Offset int
	Msg    string
}

func (e *TRESError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// fixedByID maps the database ids sacctmgr may print (1=cpu, ...).
var fixedByID = map[string]int{"1": TRESCPU, "2": TRESMem, "3": TRESEnergy, "4": TRESNode, "5": TRESBilling, "6": TRESFSDisk, "7": TRESVMem, "8": TRESPages}

// memUnits are the suffixes sacctmgr accepts on memory-like TRES; the
// value is in megabytes.
var memUnits = map[byte]float64{'K': 1.0 / 1024, 'M': 1, 'G': 1024, 'T': 1024 * 1024, 'P': 1024 * 1024 * 1024}

// Parse reads a TRES string as sacctmgr takes and prints it
// ("cpu=8,mem=16G,gres/gpu=2", or by database id "1=8"): a value of -1
// unsets the entry. Memory-like TRES (mem, vmem, fs/disk, bb/*) take K, M,
// G, T, P suffixes and are kept in megabytes. A TRES the list does not
// track is an error naming it.
func (l *TRESList) Parse(s string) (Vector, error) {
	v := NewVector(l.Len())
	if err := l.ParseInto(v, s); err != nil {
		return nil, err
	}
	return v, nil
}

// ParseInto is Parse into an existing vector, leaving entries the string
// does not name unchanged.
func (l *TRESList) ParseInto(v Vector, s string) error {
	off := 0
	for _, item := range strings.Split(s, ",") {
		start := off
		off += len(item) + 1
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return &TRESError{start, fmt.Sprintf("%q: expected NAME=COUNT", item)}
		}
		i, ok := l.Index(name)
		if !ok {
			if id, isID := fixedByID[name]; isID {
				i, ok = id, true
			}
		}
		if !ok {
			return &TRESError{start, fmt.Sprintf("unknown TRES %q (not in AccountingStorageTRES)", name)}
		}
		if val == "-1" {
			v[i] = Infinite64
			continue
		}
		n, err := l.parseCount(i, val)
		if err != nil {
			return &TRESError{start + len(name) + 1, fmt.Sprintf("%s=%s: %v", name, val, err)}
		}
		v[i] = n
	}
	return nil
}

func (l *TRESList) memLike(i int) bool {
	switch i {
	case TRESMem, TRESVMem, TRESFSDisk:
		return true
	}
	return l.Type(i) == "bb"
}

func (l *TRESList) parseCount(i int, val string) (uint64, error) {
	mult := 1.0
	num := val
	if l.memLike(i) && len(val) > 0 {
		if m, ok := memUnits[strings.ToUpper(val[len(val)-1:])[0]]; ok {
			mult = m
			num = val[:len(val)-1]
		}
	}
	if mult == 1 {
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil || n == Infinite64 {
			return 0, fmt.Errorf("not a count")
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*mult >= float64(math.MaxInt64) {
		return 0, fmt.Errorf("not a size")
	}
	return uint64(math.Ceil(f * mult)), nil
}

// Format writes the set entries of v as sacctmgr prints them, in TRES
// order ("cpu=8,mem=16000,gres/gpu=2"); memory is written in megabytes.
func (l *TRESList) Format(v Vector) string {
	var b strings.Builder
	for i, x := range v {
		if x == Infinite64 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.names[i])
		b.WriteByte('=')
		b.WriteString(strconv.FormatUint(x, 10))
	}
	return b.String()
}

// BillingWeights are a partition's TRESBillingWeights: a weight per TRES.
// A TRES without a weight counts nothing.
type BillingWeights struct {
	w []float64
}

// ParseBillingWeights reads TRESBillingWeights ("CPU=1.0,Mem=0.25G,
// GRES/gpu=2.0"). A memory weight with a unit suffix is per that unit
// (0.25G: 0.25 per gigabyte).
func (l *TRESList) ParseBillingWeights(s string) (*BillingWeights, error) {
	bw := &BillingWeights{w: make([]float64, l.Len())}
	off := 0
	for _, item := range strings.Split(s, ",") {
		start := off
		off += len(item) + 1
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, &TRESError{start, fmt.Sprintf("%q: expected NAME=WEIGHT", item)}
		}
		i, ok := l.Index(name)
		if !ok {
			return nil, &TRESError{start, fmt.Sprintf("unknown TRES %q in TRESBillingWeights", name)}
		}
		div := 1.0
		if l.memLike(i) && len(val) > 0 {
			if m, ok := memUnits[strings.ToUpper(val[len(val)-1:])[0]]; ok {
				div = m
				val = val[:len(val)-1]
			}
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, &TRESError{start + len(name) + 1, fmt.Sprintf("%s=%s: not a weight", name, val)}
		}
		bw.w[i] = f / div
	}
	return bw, nil
}

// BillingMode is PriorityFlags' say over billing.
type BillingMode uint8

// Billing modes.
const (
	// BillSum sums every weighted TRES.
	BillSum BillingMode = iota
	// BillMaxTRES is PriorityFlags=MAX_TRES: the largest weighted node TRES
	// (cpu, mem, node, gres) plus the sum of the others.
	BillMaxTRES
	// BillMaxTRESGRES is PriorityFlags=MAX_TRES_GRES: as MAX_TRES, but the
	// weighted GRES are added to the largest of cpu, mem and node.
	BillMaxTRESGRES
)

// Weights are the weight of each TRES, in TRES order (a copy; memory per
// megabyte). PriorityWeightTRES has the same syntax, so [priority] reads
// it with ParseBillingWeights.
func (bw *BillingWeights) Weights() []float64 { return append([]float64(nil), bw.w...) }

// Billing is assoc_mgr_tres_weighted: the billing TRES of a request. With
// no weights it is the CPU count. Unset entries count zero.
func (bw *BillingWeights) Billing(l *TRESList, v Vector, mode BillingMode) float64 {
	if bw == nil {
		if v[TRESCPU] == Infinite64 {
			return 0
		}
		return float64(v[TRESCPU])
	}
	node, global, gres := 0.0, 0.0, 0.0
	for i, x := range v {
		if i >= len(bw.w) || x == Infinite64 || i == TRESBilling {
			continue
		}
		w := float64(x) * bw.w[i]
		isGRES := l.Type(i) == "gres"
		if mode != BillSum && (i == TRESCPU || i == TRESMem || i == TRESNode || isGRES) {
			if mode == BillMaxTRESGRES && isGRES {
				gres += w
			} else if w > node {
				node = w
			}
			continue
		}
		global += w
	}
	return node + gres + global
}

// TRESNamesIn finds the dynamic TRES a configuration text names
// ("gres/gpu", "gres/gpu:a100", "license/matlab", "bb/cray" before an
// '='), lower case, sorted, each once: what AccountingStorageTRES must
// hold for the text to be read.
func TRESNamesIn(data []byte) []string {
	seen := map[string]bool{}
	s := strings.ToLower(string(data))
	for _, prefix := range []string{"gres/", "license/", "bb/"} {
		for i := 0; ; {
			k := strings.Index(s[i:], prefix)
			if k < 0 {
				break
			}
			start := i + k
			end := start + len(prefix)
			for end < len(s) && (s[end] >= 'a' && s[end] <= 'z' || s[end] >= '0' && s[end] <= '9' || strings.IndexByte("_-.:", s[end]) >= 0) {
				end++
			}
			if end < len(s) && s[end] == '=' && end > start+len(prefix) && (start == 0 || !isNameByte(s[start-1])) {
				seen[s[start:end]] = true
			}
			i = end
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '/'
}
