package priority

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/nodesift/sift/limits"
)

// SprioOptions choose how WriteSprio prints.
type SprioOptions struct {
	// Long is sprio -l; otherwise only the columns with a weight.
	Long bool
	// Normalized is sprio -n: factors before their weights.
	Normalized bool
	// NoHeader is sprio -h.
	NoHeader bool
	// Config gives the weights (and which columns the short form shows).
	Config Config
	// TRES names the TRES columns' entries.
	TRES *limits.TRESList
}

type sprioCol struct {
	width int
	right bool
	head  string
	val   func(f *Factors) string
}

// WriteSprio prints rows as sprio does (default format of -l or the
// weighted short form, -n for normalised values), sorted by job id.
func WriteSprio(w io.Writer, rows []Factors, o SprioOptions) error {
	c := &o.Config
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	norm := func(v float64, weight uint32) string {
		if weight == 0 {
			v = 0
		} else {
			v /= float64(weight)
		}
		return strconv.FormatFloat(v, 'f', 7, 64)
	}
	factor := func(get func(f *Factors) float64, weight uint32) func(f *Factors) string {
		return func(f *Factors) string {
			if f.Direct > 0 {
				return "0"
			}
			if o.Normalized {
				return norm(get(f), weight)
			}
			return num(get(f))
		}
	}
	width := 10
	right := !o.Normalized
	prio := func(f *Factors) string {
		if o.Normalized {
			return fmt.Sprintf("%16.14f", f.Sum()/float64(math.MaxUint32))
		}
		return strconv.FormatInt(int64(f.Sum()), 10)
	}
	tres := func(f *Factors) string {
		if f.Direct > 0 {
			return ""
		}
		var parts []string
		for i, v := range f.TRES {
			if v == 0 {
				continue
			}
			name := strconv.Itoa(i)
			if o.TRES != nil {
				name = o.TRES.Name(i)
			}
			if o.Normalized {
				wt := 0.0
				if m := o.Config.tresWeights(o.TRES); i < len(m) {
					wt = m[i]
				}
				parts = append(parts, fmt.Sprintf("%s=%.2f", name, v/wt))
			} else {
				parts = append(parts, fmt.Sprintf("%s=%.0f", name, v))
			}
		}
		return strings.Join(parts, ",")
	}
	cols := []sprioCol{
		{15, true, "JOBID", func(f *Factors) string { return strconv.FormatUint(uint64(f.JobID), 10) }},
		{9, false, "PARTITION", func(f *Factors) string { return f.Partition }},
	}
	if o.Long {
		cols = append(cols,
			sprioCol{8, true, "USER", func(f *Factors) string { return f.User }},
			sprioCol{8, true, "ACCOUNT", func(f *Factors) string { return f.Account }})
	}
	cols = append(cols, sprioCol{width, right, "PRIORITY", prio})
	if !o.Normalized {
		cols = append(cols, sprioCol{10, true, "SITE", func(f *Factors) string {
			if f.Direct > 0 {
				return "0"
			}
			return strconv.FormatInt(f.Site, 10)
		}})
	}
	add := func(show bool, head string, get func(f *Factors) float64, weight uint32) {
		if o.Long || show {
			cols = append(cols, sprioCol{width, right, head, factor(get, weight)})
		}
	}
	add(c.WeightAge != 0, "AGE", func(f *Factors) float64 { return f.Age }, c.WeightAge)
	add(c.WeightAssoc != 0, "ASSOC", func(f *Factors) float64 { return f.Assoc }, c.WeightAssoc)
	add(c.WeightFairshare != 0, "FAIRSHARE", func(f *Factors) float64 { return f.FairShare }, c.WeightFairshare)
	add(c.WeightJobSize != 0, "JOBSIZE", func(f *Factors) float64 { return f.JobSize }, c.WeightJobSize)
	add(c.WeightPartition != 0, "PARTITION", func(f *Factors) float64 { return f.PartitionF }, c.WeightPartition)
	if o.Long {
		cols = append(cols, sprioCol{10, right, "QOSNAME", func(f *Factors) string { return f.QOSName }})
	}
	add(c.WeightQOS != 0, "QOS", func(f *Factors) float64 { return f.QOS }, c.WeightQOS)
	if o.Long && !o.Normalized {
		cols = append(cols, sprioCol{11, true, "NICE", func(f *Factors) string {
			if f.Direct > 0 {
				return "0"
			}
			return strconv.FormatInt(f.Nice, 10)
		}})
	}
	if o.Long || c.WeightTRES != "" {
		cols = append(cols, sprioCol{20, right, "TRES", tres})
	}
	var b strings.Builder
	line := func(get func(c sprioCol) string) {
		for i, col := range cols {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(sprioCell(get(col), col.width, col.right))
		}
		b.WriteByte('\n')
	}
	if !o.NoHeader {
		line(func(c sprioCol) string { return c.head })
	}
	sorted := append([]Factors(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].JobID < sorted[j].JobID })
	for i := range sorted {
		f := &sorted[i]
		line(func(c sprioCol) string { return c.val(f) })
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sprioCell is sprio's _print_str: right-justified ("%*s") or cut
// ("%.*s") and padded to the width, never longer than it.
func sprioCell(s string, width int, right bool) string {
	if right {
		if len(s) < width {
			s = strings.Repeat(" ", width-len(s)) + s
		}
		return s[:width]
	}
	if len(s) > width {
		s = s[:width]
	}
	return s + strings.Repeat(" ", width-len(s))
}

// tresWeights are the PriorityWeightTRES weights for l (nil if none).
func (c *Config) tresWeights(l *limits.TRESList) []float64 {
	if c.WeightTRES == "" || l == nil {
		return nil
	}
	bw, err := l.ParseBillingWeights(c.WeightTRES)
	if err != nil {
		return nil
	}
	return bw.Weights()
}

// ShareRow is one sshare row: an association's shares and usage.
type ShareRow struct {
	// Account is the account (a user row's account); User the user, empty
	// for an account; Partition the user association's partition; Depth
	// the association's depth below root (the account column's indent).
	Account, User, Partition string
	Depth                    int
	// RawShares is the Fairshare (limits.NoVal for root,
	// limits.FairshareParent for "parent").
	RawShares  uint32
	NormShares float64
	RawUsage   uint64
	// NormUsage is NaN where Slurm's is unset (NO_VAL: root, and an
	// association no calculation has reached), which sshare leaves blank.
	NormUsage float64
	Effective float64
	// FairShare is a user's factor (NaN for accounts); LevelFS Fair
	// Tree's level fair-share (NaN for root and "parent" rows).
	FairShare, LevelFS float64
	// GrpTRESMins is the association's GrpTRESMins limit; RunMins the
	// TRES-minutes its running jobs have left (TRESRunMins), per TRES.
	GrpTRESMins limits.Vector
	RunMins     []uint64
}

// ShareRows are the sshare -a rows of every association, in
// slurmctld's order: depth first from root, users before sub-accounts,
// each alphabetically.
func (m *Multifactor) ShareRows() []ShareRow {
	return m.Shares.Rows(m.Policy.TRES.Len())
}

// Rows are the sshare -a rows of the tree; n is the TRES count.
func (s *Shares) Rows(n int) []ShareRow {
	if s.flags&FairTree == 0 {
		s.classicUsers()
	}
	var out []ShareRow
	var walk func(nd *Node, depth int)
	walk = func(nd *Node, depth int) {
		a := nd.Assoc
		r := ShareRow{Account: a.Account, User: a.User, Partition: a.Partition, Depth: depth,
			RawShares: nd.SharesRaw, NormShares: nd.SharesNorm, RawUsage: uint64(nd.UsageRaw),
			NormUsage: nd.UsageNorm, Effective: nd.UsageEfctv, FairShare: math.NaN(), LevelFS: nd.LevelFS,
			GrpTRESMins: a.Limits.GrpTRESMins, RunMins: make([]uint64, n)}
		if nd.Parent == nil {
			r.RawShares = limits.NoVal
			r.Account = "root"
		}
		if nd.isUser {
			r.FairShare = nd.FSFactor
		}
		if nd.UsageNorm == noVal {
			r.NormUsage = math.NaN()
		}
		if nd.SharesRaw == limits.FairshareParent || s.flags&FairTree == 0 || nd.Parent == nil {
			r.LevelFS = math.NaN()
		}
		for i := range r.RunMins {
			if i < len(nd.RunSecs) {
				r.RunMins[i] = uint64(nd.RunSecs[i]) / 60
			}
		}
		out = append(out, r)
		var kids []*limits.Assoc
		kids = append(kids, a.Children...)
		sort.SliceStable(kids, func(i, j int) bool {
			x, y := kids[i], kids[j]
			if x.IsUser() != y.IsUser() {
				return x.IsUser()
			}
			return sortName(x) < sortName(y)
		})
		for _, k := range kids {
			walk(s.byAssoc[k], depth+1)
		}
	}
	walk(s.Root, 0)
	return out
}

func sortName(a *limits.Assoc) string {
	if a.IsUser() {
		return a.User
	}
	return a.Account
}

// SshareOptions choose how WriteSshare prints.
type SshareOptions struct {
	// Long is sshare -l; Parsable sshare -P (fields joined by "|", no
	// trailing one); NoHeader sshare -n; UsersOnly sshare -U.
	Long, Parsable, NoHeader, UsersOnly bool
	// Flags decide Fair Tree's LevelFS column.
	Flags Flags
	TRES  *limits.TRESList
}

type sshareField struct {
	width int // negative: left-justified
	name  string
	cell  func(r *ShareRow) (string, bool) // value, set
}

// WriteSshare prints rows as sshare -a [-l] [-P] does.
func WriteSshare(w io.Writer, rows []ShareRow, o SshareOptions) error {
	dbl := func(v float64) (string, bool) {
		if math.IsNaN(v) {
			return "", false
		}
		return cFloat(v), true
	}
	tresStr := func(v []uint64, remove bool) (string, bool) {
		var parts []string
		for i, x := range v {
			if remove && x == limits.Infinite64 {
				continue
			}
			name := strconv.Itoa(i)
			if o.TRES != nil {
				name = o.TRES.Name(i)
			}
			parts = append(parts, name+"="+strconv.FormatUint(x, 10))
		}
		return strings.Join(parts, ","), len(parts) > 0
	}
	fields := []sshareField{
		{-20, "Account", func(r *ShareRow) (string, bool) {
			return strings.Repeat(" ", r.Depth) + r.Account, true
		}},
		{10, "User", func(r *ShareRow) (string, bool) { return r.User, r.User != "" }},
		{10, "RawShares", func(r *ShareRow) (string, bool) {
			switch r.RawShares {
			case limits.FairshareParent:
				return "parent", true
			case limits.NoVal, limits.Infinite:
				return "", false
			}
			return strconv.FormatUint(uint64(r.RawShares), 10), true
		}},
		{11, "NormShares", func(r *ShareRow) (string, bool) { return dbl(r.NormShares) }},
		{11, "RawUsage", func(r *ShareRow) (string, bool) { return strconv.FormatUint(r.RawUsage, 10), true }},
	}
	if o.Long {
		fields = append(fields, sshareField{11, "NormUsage", func(r *ShareRow) (string, bool) { return dbl(r.NormUsage) }})
	}
	fields = append(fields,
		sshareField{13, "EffectvUsage", func(r *ShareRow) (string, bool) { return dbl(r.Effective) }},
		sshareField{10, "FairShare", func(r *ShareRow) (string, bool) { return dbl(r.FairShare) }})
	if o.Long {
		if o.Flags&FairTree != 0 {
			fields = append(fields, sshareField{10, "LevelFS", func(r *ShareRow) (string, bool) { return dbl(r.LevelFS) }})
		}
		fields = append(fields,
			sshareField{30, "GrpTRESMins", func(r *ShareRow) (string, bool) { return tresStr(r.GrpTRESMins, true) }},
			sshareField{30, "TRESRunMins", func(r *ShareRow) (string, bool) { return tresStr(r.RunMins, true) }})
	}
	var b strings.Builder
	if !o.NoHeader {
		for i, f := range fields {
			if o.Parsable {
				b.WriteString(f.name)
				if i < len(fields)-1 {
					b.WriteByte('|')
				}
				continue
			}
			b.WriteString(pad(f.name, f.width, true) + " ")
		}
		b.WriteByte('\n')
		if !o.Parsable {
			for _, f := range fields {
				b.WriteString(strings.Repeat("-", abs(f.width)) + " ")
			}
			b.WriteByte('\n')
		}
	}
	for i := range rows {
		r := &rows[i]
		if o.UsersOnly && r.User == "" {
			continue
		}
		for k, f := range fields {
			v, set := f.cell(r)
			if o.Parsable {
				b.WriteString(v)
				if k < len(fields)-1 {
					b.WriteByte('|')
				}
				continue
			}
			switch {
			case !set:
				b.WriteString(pad(" ", f.width, false) + " ")
			case f.name == "NormShares" || f.name == "NormUsage" || f.name == "EffectvUsage" ||
				f.name == "FairShare" || f.name == "LevelFS":
				b.WriteString(cFloatWidth(r, f, v) + " ")
			default:
				if len(v) > abs(f.width) {
					v = v[:abs(f.width)-1] + "+"
				}
				b.WriteString(pad(v, f.width, false) + " ")
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cFloatWidth is print_fields_double: "%*f", or when that is wider than
// the column, "%*.*e" with the precision cut until it fits.
func cFloatWidth(r *ShareRow, f sshareField, v string) string {
	width := abs(f.width)
	if len(v) <= width {
		return pad(v, f.width, false)
	}
	var x float64
	switch f.name {
	case "NormShares":
		x = r.NormShares
	case "NormUsage":
		x = r.NormUsage
	case "EffectvUsage":
		x = r.Effective
	case "FairShare":
		x = r.FairShare
	case "LevelFS":
		x = r.LevelFS
	}
	e := cExp(x, width)
	if len(e) > width {
		width -= len(e) - width
	}
	return pad(cExp(x, width), f.width, false)
}

// cFloat is C's "%f": six decimals, "inf" for infinity.
func cFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// cExp is C's "%.*e" (two-digit exponent at least).
func cExp(v float64, prec int) string {
	if math.IsInf(v, 0) {
		return cFloat(v)
	}
	return strconv.FormatFloat(v, 'e', max(prec, 0), 64)
}

// pad is "%*.*s"-style: right-justified for a positive width, left for a
// negative one; header names are cut to the width.
func pad(s string, width int, cut bool) string {
	w := abs(width)
	if cut && len(s) > w {
		s = s[:w]
	}
	if len(s) >= w {
		return s
	}
	if width < 0 {
		return s + strings.Repeat(" ", w-len(s))
	}
	return strings.Repeat(" ", w-len(s)) + s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
