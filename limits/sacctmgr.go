package limits

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// ConfigError is a configuration line that cannot be read: the file, the
// 1-based line, the field (empty for the line as a whole) and the byte
// offset of the field in the line.
type ConfigError struct {
	File   string
	Line   int
	Field  string
	Offset int
	Err    error
}

func (e *ConfigError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, e.Field, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Warning is a field a reader skipped (unknown to sift).
type Warning struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s: %s", w.File, w.Line, w.Field, w.Msg) }

// maxConfigLine bounds one line of a configuration file.
const maxConfigLine = 1 << 20

// dumpField is one "Name=Value" (or the "Kind - 'name'" head) of a dump
// line, with its byte offset.
type dumpField struct {
	name, value string
	off         int
}

// splitDumpLine splits a sacctmgr dump line at the colons that separate
// fields: not inside quotes, and not the type separator of a typed TRES
// ("gres/gpu:tesla=4": the colon follows a '/' in the same value).
func splitDumpLine(line string) ([]dumpField, error) {
	var out []dumpField
	start := 0
	var quote byte
	for i := 0; i <= len(line); i++ {
		if i < len(line) {
			c := line[i]
			if quote != 0 {
				if c == quote {
					quote = 0
				}
				continue
			}
			if c == '\'' || c == '"' {
				quote = c
				continue
			}
			if c != ':' || typedTRESColon(line[start:i]) {
				continue
			}
		}
		seg := line[start:i]
		name, val, ok := strings.Cut(seg, "=")
		f := dumpField{name: strings.TrimSpace(seg), off: start}
		if ok {
			f.name, f.value = strings.TrimSpace(name), unquote(strings.TrimSpace(val))
		}
		out = append(out, f)
		start = i + 1
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	return out, nil
}

// typedTRESColon: the text before a colon ends in "NAME/TYPE" with no '=',
// ',', ':' or quote after the '/'.
func typedTRESColon(before string) bool {
	for j := len(before) - 1; j >= 0; j-- {
		switch before[j] {
		case '=', ',', ':', '"', '\'':
			return false
		case '/':
			return true
		}
	}
	return false
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'' || s[0] == '"' && s[len(s)-1] == '"') {
		return s[1 : len(s)-1]
	}
	return s
}

// checkName refuses a name sacctmgr could not write back: empty, with a
// quote, colon, comma, equals sign, blank or control character.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	for _, c := range name {
		if c <= ' ' || c == 0x7f || strings.ContainsRune("'\":,=", c) {
			return fmt.Errorf("name %q: quotes, colons, commas, '=', blanks and control characters are not allowed", name)
		}
	}
	return nil
}

// quoted puts s in the quote character it does not contain.
func quoted(s string) string {
	if strings.Contains(s, "'") {
		return "\"" + s + "\""
	}
	return "'" + s + "'"
}

// ensureNormal adds the "normal" QOS slurmdbd always has.
func (p *Policy) ensureNormal() {
	if p.qos["normal"] == nil {
		p.AddQOS(NewQOS("normal", p.TRES.Len()))
	}
}

// ReadDump reads a `sacctmgr dump` file: optional "QOS - 'name':..." lines,
// one "Cluster - 'name':..." line (its limits are root's), then "Parent -
// 'account'" lines, each followed by the "Account - 'name':..." and "User
// - 'name':..." lines under that account. Every limit field sacctmgr
// writes is read; unknown fields are returned as warnings. Errors name
// the file, line and field.
func ReadDump(file string, data []byte, tres *TRESList) (*Policy, []Warning, error) {
	var p *Policy
	var warns []Warning
	parent := "root"
	var pendingQOS []*QOS
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), maxConfigLine)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		fields, err := splitDumpLine(line)
		if err != nil {
			return nil, warns, &ConfigError{File: file, Line: ln, Err: err}
		}
		kind, name, ok := strings.Cut(fields[0].name, "-")
		kind = strings.TrimSpace(kind)
		name = unquote(strings.TrimSpace(name))
		if !ok || name == "" {
			return nil, warns, &ConfigError{File: file, Line: ln, Err: fmt.Errorf("expected \"KIND - 'NAME'\", got %q", fields[0].name)}
		}
		fields = fields[1:]
		if err := checkName(name); err != nil {
			return nil, warns, &ConfigError{File: file, Line: ln, Err: err}
		}
		bad := func(f dumpField, err error) error {
			return &ConfigError{File: file, Line: ln, Field: f.name, Offset: f.off, Err: err}
		}
		for _, f := range fields {
			if strings.Contains(f.value, "'") && strings.Contains(f.value, "\"") {
				return nil, warns, bad(f, errors.New("a value with both quote characters"))
			}
		}
		switch strings.ToLower(kind) {
		case "qos":
			if p != nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: errors.New("a QOS line after the Cluster line (QOS lines come first)")}
			}
			tmp := NewPolicy(tres, "")
			q := NewQOS(name, tres.Len())
			for _, f := range fields {
				if err := tmp.setQOSField(q, f.name, f.value); errors.Is(err, errUnknownField) {
					warns = append(warns, Warning{file, ln, f.name, "unknown QOS field, ignored"})
				} else if err != nil {
					return nil, warns, bad(f, err)
				}
			}
			pendingQOS = append(pendingQOS, q)
		case "cluster", "machine":
			if p != nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: errors.New("a second Cluster line")}
			}
			p = NewPolicy(tres, name)
			for _, q := range pendingQOS {
				p.AddQOS(q)
			}
			for _, f := range fields {
				if w, err := p.assocLineField(p.Root, f); err != nil {
					return nil, warns, bad(f, err)
				} else if w != "" {
					warns = append(warns, Warning{file, ln, f.name, w})
				}
			}
		case "parent":
			if p == nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: errors.New("a Parent line before the Cluster line")}
			}
			if p.Account(name) == nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: fmt.Errorf("parent account %q not defined yet", name)}
			}
			parent = name
		case "account", "project":
			if p == nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: errors.New("an Account line before the Cluster line")}
			}
			a, err := p.AddAccount(name, parent)
			if err != nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: err}
			}
			for _, f := range fields {
				if w, err := p.assocLineField(a, f); err != nil {
					return nil, warns, bad(f, err)
				} else if w != "" {
					warns = append(warns, Warning{file, ln, f.name, w})
				}
			}
		case "user":
			if p == nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: errors.New("a User line before the Cluster line")}
			}
			part := ""
			for _, f := range fields {
				if strings.EqualFold(f.name, "Partition") {
					part = f.value
					if err := checkName(part); err != nil {
						return nil, warns, bad(f, err)
					}
				}
			}
			a, err := p.AddUser(name, parent, part)
			if err != nil {
				return nil, warns, &ConfigError{File: file, Line: ln, Err: err}
			}
			for _, f := range fields {
				if strings.EqualFold(f.name, "DefaultAccount") && f.value != "" {
					p.SetDefaultAccount(name, f.value)
				}
			}
			if p.DefaultAccount(name) == "" {
				p.SetDefaultAccount(name, parent)
			}
			for _, f := range fields {
				if w, err := p.assocLineField(a, f); err != nil {
					return nil, warns, bad(f, err)
				} else if w != "" {
					warns = append(warns, Warning{file, ln, f.name, w})
				}
			}
		default:
			return nil, warns, &ConfigError{File: file, Line: ln, Err: fmt.Errorf("unknown line kind %q", kind)}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, warns, &ConfigError{File: file, Err: err}
	}
	if p == nil {
		return nil, warns, &ConfigError{File: file, Err: errors.New("no Cluster line")}
	}
	p.ensureNormal()
	p.Finish()
	return p, warns, nil
}

// userLineFields are the User/Account line fields that are not limits.
var userLineFields = map[string]bool{
	"defaultaccount": true, "defaultwckey": true, "adminlevel": true, "coordinator": true,
	"wckeys": true, "comment": true, "description": true, "organization": true,
	"partition": true, "classification": true,
}

// assocLineField applies one field of a Cluster, Account or User line; it
// returns a warning text for a field it skips.
func (p *Policy) assocLineField(a *Assoc, f dumpField) (string, error) {
	if userLineFields[strings.ToLower(f.name)] {
		return "", nil
	}
	if f.value == "" && !strings.Contains(f.name, "=") {
		return "", nil
	}
	err := p.setAssocField(a, f.name, f.value)
	if errors.Is(err, errUnknownField) {
		return "unknown field, ignored", nil
	}
	return "", err
}

// WriteDump writes the policy as a `sacctmgr dump` file: the QOS lines,
// the Cluster line (root's limits), then each account's children after a
// "Parent - 'account'" line, in the order added.
func WriteDump(w io.Writer, p *Policy) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sacctmgr dump of cluster %s, written by sift\n", p.Cluster)
	for _, q := range p.qosOrder {
		fmt.Fprintf(bw, "QOS - '%s'%s\n", q.Name, p.qosLine(q))
	}
	fmt.Fprintf(bw, "Cluster - '%s'%s\n", p.Cluster, p.assocLine(p.Root))
	var walk func(a *Assoc)
	walk = func(a *Assoc) {
		if len(a.Children) == 0 {
			return
		}
		fmt.Fprintf(bw, "Parent - '%s'\n", a.Account)
		for _, c := range a.Children {
			if !c.IsUser() {
				fmt.Fprintf(bw, "Account - '%s'%s\n", c.Account, p.assocLine(c))
				continue
			}
			extra := ""
			if c.Partition != "" {
				extra = ":Partition=" + quoted(c.Partition)
			}
			if d := p.DefaultAccount(c.User); d != "" {
				extra = ":DefaultAccount=" + quoted(d) + extra
			}
			fmt.Fprintf(bw, "User - '%s'%s%s\n", c.User, extra, p.assocLine(c))
		}
		for _, c := range a.Children {
			if !c.IsUser() {
				walk(c)
			}
		}
	}
	walk(p.Root)
	return bw.Flush()
}

func (p *Policy) assocLine(a *Assoc) string {
	var b strings.Builder
	if a.DefaultQOS != "" {
		fmt.Fprintf(&b, ":DefaultQOS=%s", quoted(a.DefaultQOS))
	}
	switch a.Fairshare {
	case Infinite:
	case FairshareParent:
		b.WriteString(":Fairshare=parent")
	default:
		fmt.Fprintf(&b, ":Fairshare=%d", a.Fairshare)
	}
	for _, f := range a.Limits.tresFields() {
		if s := p.TRES.Format(*f.p); s != "" {
			fmt.Fprintf(&b, ":%s=%s", f.name, s)
		}
	}
	for _, f := range a.Limits.countFields() {
		if *f.p != Infinite {
			fmt.Fprintf(&b, ":%s=%d", f.name, *f.p)
		}
	}
	if len(a.QOS) > 0 {
		fmt.Fprintf(&b, ":QOS=%s", quoted(strings.Join(a.QOS, ",")))
	}
	return b.String()
}

func (p *Policy) qosLine(q *QOS) string {
	var b strings.Builder
	fmt.Fprintf(&b, ":Description=%s", quoted(q.Description))
	if q.Flags != 0 {
		fmt.Fprintf(&b, ":Flags=%s", quoted(q.Flags.String()))
	}
	if q.GraceTime != 0 {
		fmt.Fprintf(&b, ":GraceTime=%d", q.GraceTime)
	}
	for _, f := range q.tresFields() {
		if s := p.TRES.Format(*f.p); s != "" {
			fmt.Fprintf(&b, ":%s=%s", f.name, s)
		}
	}
	for _, f := range q.countFields() {
		if *f.p != Infinite {
			fmt.Fprintf(&b, ":%s=%d", f.name, *f.p)
		}
	}
	if q.LimitFactor != 0 {
		fmt.Fprintf(&b, ":LimitFactor=%s", strconv.FormatFloat(q.LimitFactor, 'g', -1, 64))
	}
	if len(q.Preempt) > 0 {
		fmt.Fprintf(&b, ":Preempt=%s", quoted(strings.Join(q.Preempt, ",")))
	}
	if q.PreemptMode != "" {
		fmt.Fprintf(&b, ":PreemptMode=%s", quoted(q.PreemptMode))
	}
	if q.Priority != 0 {
		fmt.Fprintf(&b, ":Priority=%d", q.Priority)
	}
	if q.UsageFactor != 1 {
		fmt.Fprintf(&b, ":UsageFactor=%s", strconv.FormatFloat(q.UsageFactor, 'g', -1, 64))
	}
	if q.UsageThreshold != 0 {
		fmt.Fprintf(&b, ":UsageThreshold=%s", strconv.FormatFloat(q.UsageThreshold, 'g', -1, 64))
	}
	return b.String()
}

// ReadQOSParsable reads `sacctmgr show qos --parsable2` output (a header
// line of field names, then one QOS a line, fields split by '|') into p,
// replacing QOS of the same name. Unknown columns are warnings; a bad
// value is an error naming the file, line and column.
func ReadQOSParsable(file string, data []byte, p *Policy) ([]Warning, error) {
	var warns []Warning
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), maxConfigLine)
	var header []string
	nameCol := -1
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "|")
		if header == nil {
			header = cols
			for i, h := range header {
				if strings.EqualFold(strings.TrimSpace(h), "Name") {
					nameCol = i
				}
			}
			if nameCol < 0 {
				return warns, &ConfigError{File: file, Line: ln, Err: errors.New("header has no Name column")}
			}
			continue
		}
		if len(cols) != len(header) {
			return warns, &ConfigError{File: file, Line: ln, Err: fmt.Errorf("%d fields, header has %d", len(cols), len(header))}
		}
		q := NewQOS(strings.TrimSpace(cols[nameCol]), p.TRES.Len())
		if q.Name == "" {
			return warns, &ConfigError{File: file, Line: ln, Field: "Name", Err: errors.New("empty QOS name")}
		}
		off := 0
		for i, v := range cols {
			h := strings.TrimSpace(header[i])
			colOff := off
			off += len(v) + 1
			if i == nameCol || v == "" {
				continue
			}
			if err := p.setQOSField(q, h, v); errors.Is(err, errUnknownField) {
				if ln == 2 {
					warns = append(warns, Warning{file, 1, h, "unknown QOS column, ignored"})
				}
			} else if err != nil {
				return warns, &ConfigError{File: file, Line: ln, Field: h, Offset: colOff, Err: err}
			}
		}
		p.AddQOS(q)
	}
	if err := sc.Err(); err != nil {
		return warns, &ConfigError{File: file, Err: err}
	}
	return warns, nil
}

// qosColumns are the columns WriteQOSParsable writes, as sacctmgr names
// them.
var qosColumns = []string{"Name", "Priority", "GraceTime", "Preempt", "PreemptMode", "Flags", "UsageThres",
	"UsageFactor", "GrpTRES", "GrpTRESMins", "GrpTRESRunMins", "GrpJobs", "GrpSubmit", "GrpWall", "MaxTRES",
	"MaxTRESPerNode", "MaxTRESMins", "MaxWall", "MaxTRESPU", "MaxJobsPU", "MaxSubmitPU", "MaxTRESPA",
	"MaxTRESRunMinsPA", "MaxTRESRunMinsPU", "MaxJobsPA", "MaxSubmitPA", "MinTRES", "GrpJobsAccrue",
	"MaxJobsAccruePU", "MaxJobsAccruePA", "MinPrioThres", "LimitFactor", "Description"}

// WriteQOSParsable writes the policy's QOS as `sacctmgr show qos
// --parsable2` would.
func WriteQOSParsable(w io.Writer, p *Policy) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(qosColumns, "|") + "\n")
	cnt := func(v uint32) string {
		if v == Infinite {
			return ""
		}
		return strconv.FormatUint(uint64(v), 10)
	}
	fl := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for _, q := range p.qosOrder {
		lf := ""
		if q.LimitFactor != 0 {
			lf = fl(q.LimitFactor)
		}
		ut := ""
		if q.UsageThreshold != 0 {
			ut = fl(q.UsageThreshold)
		}
		row := []string{q.Name, strconv.FormatUint(uint64(q.Priority), 10),
			fmt.Sprintf("%02d:%02d:%02d", q.GraceTime/3600, q.GraceTime/60%60, q.GraceTime%60),
			strings.Join(q.Preempt, ","), q.PreemptMode, q.Flags.String(), ut, fl(q.UsageFactor),
			p.TRES.Format(q.GrpTRES), p.TRES.Format(q.GrpTRESMins), p.TRES.Format(q.GrpTRESRunMins),
			cnt(q.GrpJobs), cnt(q.GrpSubmitJobs), FormatMinutes(q.GrpWall), p.TRES.Format(q.MaxTRESPerJob),
			p.TRES.Format(q.MaxTRESPerNode), p.TRES.Format(q.MaxTRESMinsPerJob), FormatMinutes(q.MaxWall),
			p.TRES.Format(q.MaxTRESPerUser), cnt(q.MaxJobsPerUser), cnt(q.MaxSubmitJobsPerUser),
			p.TRES.Format(q.MaxTRESPerAccount), p.TRES.Format(q.MaxTRESRunMinsPerAccount),
			p.TRES.Format(q.MaxTRESRunMinsPerUser), cnt(q.MaxJobsPerAccount), cnt(q.MaxSubmitJobsPerAccount),
			p.TRES.Format(q.MinTRESPerJob), cnt(q.GrpJobsAccrue), cnt(q.MaxJobsAccruePerUser),
			cnt(q.MaxJobsAccruePerAccount), cnt(q.MinPrioThreshold), lf, strings.ReplaceAll(q.Description, "|", " ")}
		bw.WriteString(strings.Join(row, "|") + "\n")
	}
	return bw.Flush()
}

// ParseSacctmgrCommands builds a policy from sacctmgr commands, one a
// line, as the lab feeds them to a fresh slurmdbd: "add qos NAME
// FIELD=VALUE...", "add account NAME [Parent=P] FIELD=VALUE...", "add user
// NAME Account=A[,B] [Partition=P] [DefaultAccount=A] FIELD=VALUE...",
// "modify qos|account|user NAME set FIELD=VALUE...". subst replaces
// placeholders (the lab's @USER@). The "normal" QOS exists from the start,
// as in slurmdbd.
func ParseSacctmgrCommands(data []byte, cluster string, subst map[string]string) (*Policy, error) {
	tres, _ := NewTRESList()
	text := string(data)
	keys := make([]string, 0, len(subst))
	for k := range subst {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		text = strings.ReplaceAll(text, k, subst[k])
	}
	p := NewPolicy(tres, cluster)
	p.ensureNormal()
	// sacctmgr add cluster gives the root association the QOS normal,
	// which every account without a QOS list inherits: such an account
	// may not ask for another QOS ("Invalid qos specification").
	p.Root.QOS = []string{"normal"}
	for ln, line := range strings.Split(text, "\n") {
		words := strings.Fields(line)
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		fail := func(field string, err error) error {
			return &ConfigError{File: "sacctmgr commands", Line: ln + 1, Field: field, Err: err}
		}
		if len(words) < 3 {
			return nil, fail("", fmt.Errorf("expected VERB ENTITY NAME, got %q", line))
		}
		verb, entity, name := strings.ToLower(words[0]), strings.ToLower(words[1]), words[2]
		var kv [][2]string
		for _, w := range words[3:] {
			if strings.EqualFold(w, "set") || strings.EqualFold(w, "where") {
				continue
			}
			k, v, ok := strings.Cut(w, "=")
			if !ok {
				return nil, fail(w, errors.New("expected FIELD=VALUE"))
			}
			kv = append(kv, [2]string{k, v})
		}
		switch {
		case entity == "qos" && (verb == "add" || verb == "create"):
			q := NewQOS(name, tres.Len())
			for _, f := range kv {
				if err := p.setQOSField(q, f[0], f[1]); err != nil {
					return nil, fail(f[0], err)
				}
			}
			p.AddQOS(q)
		case entity == "qos" && verb == "modify":
			q := p.QOS(name)
			if q == nil {
				return nil, fail("", fmt.Errorf("QOS %q not defined", name))
			}
			for _, f := range kv {
				if err := p.setQOSField(q, f[0], f[1]); err != nil {
					return nil, fail(f[0], err)
				}
			}
		case entity == "account" && (verb == "add" || verb == "create" || verb == "modify"):
			a := p.Account(name)
			if verb != "modify" {
				parent := "root"
				for _, f := range kv {
					if strings.EqualFold(f[0], "Parent") {
						parent = f[1]
					}
				}
				var err error
				if a, err = p.AddAccount(name, parent); err != nil {
					return nil, fail("", err)
				}
			} else if a == nil {
				return nil, fail("", fmt.Errorf("account %q not defined", name))
			}
			for _, f := range kv {
				k := strings.ToLower(f[0])
				if k == "parent" || k == "cluster" || userLineFields[k] {
					continue
				}
				if err := p.setAssocField(a, f[0], f[1]); err != nil {
					return nil, fail(f[0], err)
				}
			}
		case entity == "user" && (verb == "add" || verb == "create" || verb == "modify"):
			var accounts []string
			part := ""
			for _, f := range kv {
				switch strings.ToLower(f[0]) {
				case "account", "accounts":
					accounts = splitList(f[1])
				case "partition":
					part = f[1]
				}
			}
			if len(accounts) == 0 {
				for _, f := range kv {
					if strings.EqualFold(f[0], "DefaultAccount") {
						accounts = []string{f[1]}
					}
				}
			}
			if len(accounts) == 0 {
				return nil, fail("Account", errors.New("user without an account"))
			}
			for _, f := range kv {
				if strings.EqualFold(f[0], "DefaultAccount") {
					p.SetDefaultAccount(name, f[1])
				}
			}
			if p.DefaultAccount(name) == "" {
				// sacctmgr makes a new user's first account its default.
				p.SetDefaultAccount(name, accounts[0])
			}
			for _, acct := range accounts {
				a := p.User(name, acct, part)
				if verb != "modify" || a == nil {
					var err error
					if a, err = p.AddUser(name, acct, part); err != nil {
						return nil, fail("", err)
					}
				}
				for _, f := range kv {
					k := strings.ToLower(f[0])
					if k == "account" || k == "accounts" || k == "cluster" || userLineFields[k] {
						continue
					}
					if err := p.setAssocField(a, f[0], f[1]); err != nil {
						return nil, fail(f[0], err)
					}
				}
			}
		default:
			return nil, fail("", fmt.Errorf("unsupported command %q", verb+" "+entity))
		}
	}
	p.Finish()
	return p, nil
}
