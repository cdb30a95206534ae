package limits

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseMinutes reads a limit time as sacctmgr takes it: "MIN", "MIN:SEC",
// "HR:MIN:SEC", "DAYS-HR", "DAYS-HR:MIN", "DAYS-HR:MIN:SEC" (seconds round
// up to a minute), "UNLIMITED"/"INFINITE" or "-1" for none.
func ParseMinutes(s string) (uint32, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "-1", "unlimited", "infinite", "":
		return Infinite, nil
	}
	days := uint64(0)
	rest := s
	hasDays := false
	if d, r, ok := strings.Cut(s, "-"); ok {
		v, err := strconv.ParseUint(d, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("bad time %q", s)
		}
		days, rest, hasDays = v, r, true
	}
	parts := strings.Split(rest, ":")
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("bad time %q", s)
		}
		nums[i] = v
	}
	var secs uint64
	switch {
	case hasDays && len(nums) == 1:
		secs = nums[0] * 3600
	case hasDays && len(nums) == 2:
		secs = nums[0]*3600 + nums[1]*60
	case len(nums) == 3:
		secs = nums[0]*3600 + nums[1]*60 + nums[2]
	case !hasDays && len(nums) == 1:
		secs = nums[0] * 60
	case !hasDays && len(nums) == 2:
		secs = nums[0]*60 + nums[1]
	default:
		return 0, fmt.Errorf("bad time %q", s)
	}
	m := (days*86400 + secs + 59) / 60
	if m >= Infinite-1 {
		return 0, fmt.Errorf("time %q too large", s)
	}
	return uint32(m), nil
}

// FormatMinutes writes minutes as sacctmgr prints times ("1-00:00:00",
// "00:30:00").
func FormatMinutes(m uint32) string {
	if m == Infinite {
		return ""
	}
	d, h, mm := m/1440, m/60%24, m%60
	if d > 0 {
		return fmt.Sprintf("%d-%02d:%02d:00", d, h, mm)
	}
	return fmt.Sprintf("%02d:%02d:00", h, mm)
}

func parseCount(s string) (uint32, error) {
	if s == "-1" || strings.EqualFold(s, "unlimited") || s == "" {
		return Infinite, nil
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil || v >= Infinite-1 {
		return 0, fmt.Errorf("not a count")
	}
	return uint32(v), nil
}

// legacyTRES are sacctmgr's old one-TRES limit names.
var legacyTRES = map[string]struct {
	field string
	tres  int
}{
	"grpcpus": {"grptres", TRESCPU}, "grpnodes": {"grptres", TRESNode}, "grpmemory": {"grptres", TRESMem},
	"grpmem": {"grptres", TRESMem}, "grpcpumins": {"grptresmins", TRESCPU}, "grpcpurunmins": {"grptresrunmins", TRESCPU},
	"maxcpus": {"maxtresperjob", TRESCPU}, "maxcpusperjob": {"maxtresperjob", TRESCPU}, "maxnodes": {"maxtresperjob", TRESNode},
	"maxnodesperjob": {"maxtresperjob", TRESNode}, "maxcpumins": {"maxtresminsperjob", TRESCPU},
	"maxcpuminsperjob": {"maxtresminsperjob", TRESCPU}, "maxcpusperuser": {"maxtresperuser", TRESCPU},
	"maxcpuspu": {"maxtresperuser", TRESCPU}, "maxnodesperuser": {"maxtresperuser", TRESNode},
	"maxnodespu": {"maxtresperuser", TRESNode},
	// Slurm's own tests abbreviate (sacctmgr matches prefixes).
	"grpcpumin": {"grptresmins", TRESCPU}, "grpcpurunmin": {"grptresrunmins", TRESCPU},
	"maxcpumin": {"maxtresminsperjob", TRESCPU},
}

// fieldAliases map the spellings sacctmgr accepts and prints (dump
// files, --parsable2 headers) to one canonical field name, lower case.
var fieldAliases = map[string]string{
	"maxtres": "maxtresperjob", "maxtrespj": "maxtresperjob", "maxtrespn": "maxtrespernode",
	"maxtrespernode": "maxtrespernode", "maxtresmins": "maxtresminsperjob", "maxtresminspj": "maxtresminsperjob",
	"maxtrespu": "maxtresperuser", "maxtrespa": "maxtresperaccount", "maxtresperacct": "maxtresperaccount",
	"maxtresrunminspa": "maxtresrunminsperaccount", "maxtresrunminsperacct": "maxtresrunminsperaccount",
	"maxtresrunminspu": "maxtresrunminsperuser",
	"maxwall":          "maxwalldurationperjob", "maxwallduration": "maxwalldurationperjob",
	"grpsubmit": "grpsubmitjobs", "grpsubmitjob": "grpsubmitjobs",
	"maxjobspu": "maxjobsperuser", "maxjobspa": "maxjobsperaccount", "maxjobsperacct": "maxjobsperaccount",
	"maxsubmitjobspu": "maxsubmitjobsperuser", "maxsubmitpu": "maxsubmitjobsperuser",
	"maxsubmitjobspa": "maxsubmitjobsperaccount", "maxsubmitpa": "maxsubmitjobsperaccount",
	"maxsubmitjobsperacct": "maxsubmitjobsperaccount", "maxsubmit": "maxsubmitjobs",
	"maxjobsaccruepu": "maxjobsaccrueperuser", "maxjobsaccruepa": "maxjobsaccrueperaccount",
	"maxjobsaccrueperacct": "maxjobsaccrueperaccount",
	"mintres":              "mintresperjob", "mintrespj": "mintresperjob",
	"minpriothresh": "minpriothreshold", "fairshare": "fairshare", "share": "fairshare", "shares": "fairshare",
	"defaultqos": "defaultqos", "defqos": "defaultqos", "prio": "priority", "gracetime": "gracetime",
	"maxtresrunmins": "maxtresrunmins", "grpjobsaccrue": "grpjobsaccrue",
}

func canonical(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := fieldAliases[n]; ok {
		return a
	}
	return n
}

// errUnknownField marks a field the reader does not know (a warning).
var errUnknownField = fmt.Errorf("unknown field")

// ErrUnknownField is what SetAssocField and SetQOSField return for a field
// they do not know; readers report it as a warning.
var ErrUnknownField = errUnknownField

// SetAssocField sets one field of an association from its sacctmgr
// spelling and text (GrpTRES "cpu=8", MaxJobs "4", QOS "normal,gpu",
// DefaultQOS, Fairshare, MaxWall "2-00:00:00", legacy names such as
// GrpCPUs too). The other fields of a sacctmgr user or account line
// (Description, Organization, AdminLevel, Comment, ...) are accepted and
// ignored. Call Finish after the last change.
func (p *Policy) SetAssocField(a *Assoc, field, value string) error {
	if userLineFields[strings.ToLower(field)] {
		return nil
	}
	return p.setAssocField(a, field, value)
}

// SetQOSField sets one field of a QOS from its sacctmgr spelling and text
// (Flags, Priority, GrpTRES, MaxJobsPerUser, MaxWall, UsageFactor, ...).
func (p *Policy) SetQOSField(q *QOS, field, value string) error {
	return p.setQOSField(q, field, value)
}

// setAssocField sets one association field from its sacctmgr text.
func (p *Policy) setAssocField(a *Assoc, name, val string) error {
	key := canonical(name)
	if lt, ok := legacyTRES[key]; ok {
		v, err := p.TRES.parseCount(lt.tres, val)
		if val == "-1" {
			v, err = Infinite64, nil
		}
		if err != nil {
			return err
		}
		for _, f := range a.Limits.tresFields() {
			if strings.EqualFold(f.name, lt.field) {
				(*f.p)[lt.tres] = v
				return nil
			}
		}
	}
	switch key {
	case "fairshare":
		if strings.EqualFold(val, "parent") {
			a.Fairshare = FairshareParent
			return nil
		}
		v, err := parseCount(val)
		a.Fairshare = v
		return err
	case "qos":
		a.QOS = splitList(val)
		return nil
	case "defaultqos":
		a.DefaultQOS = val
		return nil
	case "grpwall", "maxwalldurationperjob":
		m, err := ParseMinutes(val)
		if err != nil {
			return err
		}
		if key == "grpwall" {
			a.Limits.GrpWall = m
		} else {
			a.Limits.MaxWall = m
		}
		return nil
	}
	for _, f := range a.Limits.tresFields() {
		if strings.EqualFold(f.name, key) {
			return p.TRES.ParseInto(*f.p, val)
		}
	}
	for _, f := range a.Limits.countFields() {
		if strings.EqualFold(f.name, key) || key == "minpriothreshold" && f.name == "MinPrioThresh" {
			v, err := parseCount(val)
			if err != nil {
				return err
			}
			*f.p = v
			return nil
		}
	}
	return errUnknownField
}

// setQOSField sets one QOS field from its sacctmgr text. A QOS's MaxJobs,
// MaxSubmitJobs are its per-user counts, as sacctmgr takes them.
func (p *Policy) setQOSField(q *QOS, name, val string) error {
	key := canonical(name)
	switch key {
	case "maxjobs":
		key = "maxjobsperuser"
	case "maxsubmitjobs":
		key = "maxsubmitjobsperuser"
	}
	if lt, ok := legacyTRES[key]; ok {
		v, err := p.TRES.parseCount(lt.tres, val)
		if val == "-1" {
			v, err = Infinite64, nil
		}
		if err != nil {
			return err
		}
		for _, f := range q.tresFields() {
			if strings.EqualFold(f.name, lt.field) {
				(*f.p)[lt.tres] = v
				return nil
			}
		}
	}
	switch key {
	case "description":
		q.Description = val
		return nil
	case "flags":
		f, err := ParseQOSFlags(val)
		q.Flags = f
		return err
	case "priority":
		v, err := parseCount(val)
		if v == Infinite {
			v = 0
		}
		q.Priority = v
		return err
	case "gracetime":
		// The dump writes seconds, --parsable2 a [D-]HH:MM:SS time.
		if strings.ContainsAny(val, ":-") {
			q.GraceTime = uint32(min(secondsOf(val), Infinite-1))
			return nil
		}
		v, err := parseCount(val)
		if v == Infinite {
			v = 0
		}
		q.GraceTime = v
		return err
	case "preempt":
		q.Preempt = splitList(val)
		return nil
	case "preemptmode":
		q.PreemptMode = val
		return nil
	case "preemptexempttime", "id", "name":
		return nil
	case "usagefactor", "usagethres", "usagethreshold", "limitfactor":
		f := 0.0
		if val != "" && val != "-1" {
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || v < 0 {
				return fmt.Errorf("not a factor")
			}
			f = v
		}
		switch key {
		case "usagefactor":
			if val == "" || val == "-1" {
				f = 1
			}
			q.UsageFactor = f
		case "limitfactor":
			q.LimitFactor = f
		default:
			q.UsageThreshold = f
		}
		return nil
	case "grpwall", "maxwalldurationperjob":
		m, err := ParseMinutes(val)
		if err != nil {
			return err
		}
		if key == "grpwall" {
			q.GrpWall = m
		} else {
			q.MaxWall = m
		}
		return nil
	}
	for _, f := range q.tresFields() {
		if strings.EqualFold(f.name, key) {
			return p.TRES.ParseInto(*f.p, val)
		}
	}
	for _, f := range q.countFields() {
		if strings.EqualFold(f.name, key) {
			v, err := parseCount(val)
			if err != nil {
				return err
			}
			*f.p = v
			return nil
		}
	}
	return errUnknownField
}

// secondsOf is a [D-]HH:MM:SS duration in seconds (0 if it does not
// parse).
func secondsOf(s string) uint64 {
	var days uint64
	if d, r, ok := strings.Cut(s, "-"); ok {
		days, _ = strconv.ParseUint(d, 10, 32)
		s = r
	}
	var secs uint64
	for _, part := range strings.Split(s, ":") {
		v, _ := strconv.ParseUint(part, 10, 32)
		secs = secs*60 + v
	}
	return days*86400 + secs
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		x = strings.TrimSpace(x)
		x = strings.TrimLeft(x, "+")
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
