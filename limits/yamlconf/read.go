package yamlconf

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nodesift/sift/limits"
	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest file Read accepts (bounded memory for any input;
// a configuration of 100,000 associations is a few megabytes).
const MaxSize = 16 << 20

// Error is a configuration error: the file, the line and column (from 1)
// and the byte offset (from 0) of the node it is about, the field, and
// the cause.
type Error struct {
	File         string
	Line, Column int
	Offset       int
	Field        string
	Err          error
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %v", loc, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ByteOffset is the offset of the offending node in the file.
func (e *Error) ByteOffset() int { return e.Offset }

// ErrTooLarge refuses a file above MaxSize.
var ErrTooLarge = errors.New("file larger than 16 MiB")

// reader is one Read call: the file, where its lines start, the policy
// being built and the warnings so far.
type reader struct {
	file   string
	data   []byte
	lines  []int
	p      *limits.Policy
	warns  []limits.Warning
	defAcc map[string]bool // users whose DefaultAccount is set
}

// Read reads a limits configuration in sift's YAML form:
//
//	cluster: grace          # required
//	qos:                    # optional; QOS normal always exists
//	  gpu: {Flags: [DenyOnLimit], GrpTRES: gres/gpu=16, MaxJobsPerUser: 8}
//	root: {GrpTRES: cpu=10000, QOS: [normal, gpu]}   # root's fields (default QOS: [normal])
//	accounts:
//	  physics:
//	    Fairshare: 100
//	    GrpTRES: cpu=2000
//	    accounts:           # child accounts, nested alike
//	      theory: {MaxTRESPerJob: "cpu=256,node=8"}
//	    users:
//	      alice:
//	        DefaultAccount: true    # physics is alice's default account
//	        MaxJobs: 4
//	        partitions:             # partition associations of alice/physics
//	          gpu: {MaxJobs: 2}
//
// (a user with partitions: and no other field but DefaultAccount has only
// those partition associations; root: may hold users: too).
// Every other key of a QOS, root, account, user or partition is a field
// as sacctmgr spells it (case-insensitive, legacy names too); a list is
// joined with commas. A user with no DefaultAccount: true gets the first
// account it appears under, as sacctmgr does. tres lists the TRES beyond
// the defaults (nil: the defaults).
func Read(file string, data []byte, tres *limits.TRESList) (*limits.Policy, []limits.Warning, error) {
	if len(data) > MaxSize {
		return nil, nil, &Error{File: file, Err: ErrTooLarge}
	}
	if tres == nil {
		var err error
		if tres, err = limits.NewTRESList(); err != nil {
			return nil, nil, err
		}
	}
	r := &reader{file: file, data: data, lines: lineStarts(data), defAcc: map[string]bool{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, r.syntaxError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil, &Error{File: file, Line: 1, Column: 1, Err: errors.New("empty file: expected a mapping with a cluster key")}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, nil, r.fail(top, "", errors.New("expected a mapping with a cluster key"))
	}
	var cluster, qos, root, accounts *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "cluster":
			cluster = v
		case "qos":
			qos = v
		case "root":
			root = v
		case "accounts":
			accounts = v
		default:
			r.warn(k, k.Value, "unknown top-level key")
		}
	}
	if cluster == nil {
		return nil, nil, r.fail(top, "cluster", errors.New("missing"))
	}
	if cluster.Kind != yaml.ScalarNode || cluster.Value == "" {
		return nil, nil, r.fail(cluster, "cluster", errors.New("expected a name"))
	}
	r.p = limits.NewPolicy(tres, cluster.Value)
	if err := r.readQOS(qos); err != nil {
		return nil, nil, err
	}
	if r.p.QOS("normal") == nil {
		r.p.AddQOS(limits.NewQOS("normal", tres.Len()))
	}
	// sacctmgr add cluster gives root the QOS normal.
	r.p.Root.QOS = []string{"normal"}
	if root != nil {
		var users *yaml.Node
		if err := r.fields(root, "root", func(k, v *yaml.Node, val string) error {
			return r.p.SetAssocField(r.p.Root, k.Value, val)
		}, map[string]**yaml.Node{"users": &users}); err != nil {
			return nil, nil, err
		}
		if users != nil {
			if err := r.readUsers(users, "root"); err != nil {
				return nil, nil, err
			}
		}
	}
	if accounts != nil {
		if err := r.readAccounts(accounts, "root"); err != nil {
			return nil, nil, err
		}
	}
	r.p.Finish()
	return r.p, r.warns, nil
}

func (r *reader) readQOS(n *yaml.Node) error {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return r.fail(n, "qos", errors.New("expected a mapping of QOS names"))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := r.name(k, "qos"); err != nil {
			return err
		}
		if r.p.QOS(k.Value) != nil {
			return r.fail(k, "qos", fmt.Errorf("QOS %q defined twice", k.Value))
		}
		q := limits.NewQOS(k.Value, r.p.TRES.Len())
		if err := r.fields(v, "qos "+k.Value, func(fk, fv *yaml.Node, val string) error {
			return r.p.SetQOSField(q, fk.Value, val)
		}, nil); err != nil {
			return err
		}
		r.p.AddQOS(q)
	}
	return nil
}

// readAccounts reads a mapping of accounts under parent, depth first.
func (r *reader) readAccounts(n *yaml.Node, parent string) error {
	if n.Kind != yaml.MappingNode {
		return r.fail(n, "accounts", errors.New("expected a mapping of account names"))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := r.name(k, "account"); err != nil {
			return err
		}
		a, err := r.p.AddAccount(k.Value, parent)
		if err != nil {
			return r.fail(k, "account", err)
		}
		var children, users *yaml.Node
		if err := r.fields(v, "account "+k.Value, func(fk, fv *yaml.Node, val string) error {
			return r.p.SetAssocField(a, fk.Value, val)
		}, map[string]**yaml.Node{"accounts": &children, "users": &users}); err != nil {
			return err
		}
		// Children in file order, as sacctmgr adds them.
		readUsers := func() error {
			if users == nil {
				return nil
			}
			return r.readUsers(users, k.Value)
		}
		readChildren := func() error {
			if children == nil {
				return nil
			}
			return r.readAccounts(children, k.Value)
		}
		first, second := readUsers, readChildren
		if children != nil && users != nil && children.Line < users.Line {
			first, second = readChildren, readUsers
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) readUsers(n *yaml.Node, account string) error {
	if n.Kind != yaml.MappingNode {
		return r.fail(n, "users", errors.New("expected a mapping of user names"))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := r.name(k, "user"); err != nil {
			return err
		}
		// A user with only partitions: has only those associations.
		var a *limits.Assoc
		if !onlyPartitions(v) {
			var err error
			if a, err = r.p.AddUser(k.Value, account, ""); err != nil {
				return r.fail(k, "user", err)
			}
		}
		var parts, def *yaml.Node
		set := func(a *limits.Assoc) func(fk, fv *yaml.Node, val string) error {
			return func(fk, fv *yaml.Node, val string) error { return r.p.SetAssocField(a, fk.Value, val) }
		}
		if err := r.fields(v, "user "+k.Value, set(a), map[string]**yaml.Node{"partitions": &parts, "defaultaccount": &def}); err != nil {
			return err
		}
		if def != nil {
			b, err := strconv.ParseBool(def.Value)
			if def.Kind != yaml.ScalarNode || err != nil {
				return r.fail(def, "DefaultAccount", errors.New("expected true or false"))
			}
			if b {
				if r.defAcc[k.Value] {
					return r.fail(def, "DefaultAccount", fmt.Errorf("user %q has a default account already", k.Value))
				}
				r.defAcc[k.Value] = true
				r.p.SetDefaultAccount(k.Value, account)
			}
		}
		if r.p.DefaultAccount(k.Value) == "" {
			r.p.SetDefaultAccount(k.Value, account)
		}
		if parts == nil {
			continue
		}
		if parts.Kind != yaml.MappingNode {
			return r.fail(parts, "partitions", errors.New("expected a mapping of partition names"))
		}
		for j := 0; j+1 < len(parts.Content); j += 2 {
			pk, pv := parts.Content[j], parts.Content[j+1]
			if err := r.name(pk, "partition"); err != nil {
				return err
			}
			pa, err := r.p.AddUser(k.Value, account, pk.Value)
			if err != nil {
				return r.fail(pk, "partition", err)
			}
			if err := r.fields(pv, "user "+k.Value+" partition "+pk.Value, set(pa), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// onlyPartitions reports whether a user's mapping has partitions: and
// no field but DefaultAccount.
func onlyPartitions(v *yaml.Node) bool {
	if v.Kind != yaml.MappingNode {
		return false
	}
	parts := false
	for i := 0; i+1 < len(v.Content); i += 2 {
		switch strings.ToLower(v.Content[i].Value) {
		case "partitions":
			parts = true
		case "defaultaccount":
		default:
			return false
		}
	}
	return parts
}

// fields reads a mapping of fields, calling set for each with its value
// as text; the structural keys of slots (lower case) are handed back
// instead. An empty node (`theory:`) has no fields.
func (r *reader) fields(n *yaml.Node, where string, set func(k, v *yaml.Node, val string) error, slots map[string]**yaml.Node) error {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return r.fail(n, where, errors.New("expected a mapping of fields"))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return r.fail(k, where, errors.New("expected a field name"))
		}
		key := strings.ToLower(k.Value)
		if seen[key] {
			return r.fail(k, k.Value, fmt.Errorf("set twice in %s", where))
		}
		seen[key] = true
		if slot, ok := slots[key]; ok {
			*slot = v
			continue
		}
		val, err := r.text(v)
		if err != nil {
			return r.fail(v, k.Value, err)
		}
		if err := set(k, v, val); err != nil {
			if errors.Is(err, limits.ErrUnknownField) {
				r.warn(k, k.Value, "unknown field in "+where)
				continue
			}
			e := r.fail(v, k.Value, err)
			var te *limits.TRESError
			if errors.As(err, &te) && v.Kind == yaml.ScalarNode {
				// Point at the byte of the value the TRES reader stopped at.
				off := e.Offset + te.Offset
				if v.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
					off++
				}
				e.Offset = min(off, len(r.data))
			}
			return e
		}
	}
	return nil
}

// text is a field's value as sacctmgr text: a scalar, or a list of
// scalars joined with commas.
func (r *reader) text(v *yaml.Node) (string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return "", nil
		}
		return v.Value, nil
	case yaml.SequenceNode:
		parts := make([]string, 0, len(v.Content))
		for _, c := range v.Content {
			if c.Kind != yaml.ScalarNode {
				return "", errors.New("expected a list of names")
			}
			parts = append(parts, c.Value)
		}
		return strings.Join(parts, ","), nil
	case yaml.AliasNode:
		return "", errors.New("aliases are not supported")
	}
	return "", errors.New("expected a value or a list")
}

// name checks a mapping key used as a QOS, account, user or partition
// name.
func (r *reader) name(k *yaml.Node, what string) error {
	if k.Kind != yaml.ScalarNode || k.Value == "" {
		return r.fail(k, what, errors.New("expected a name"))
	}
	if strings.ContainsAny(k.Value, " \t\n'\",:=") {
		return r.fail(k, what, fmt.Errorf("name %q holds a space, quote, comma, colon or '='", k.Value))
	}
	return nil
}

func (r *reader) warn(n *yaml.Node, field, msg string) {
	r.warns = append(r.warns, limits.Warning{File: r.file, Line: n.Line, Field: field, Msg: msg})
}

func (r *reader) fail(n *yaml.Node, field string, err error) *Error {
	return &Error{File: r.file, Line: n.Line, Column: n.Column, Offset: r.offset(n.Line, n.Column), Field: field, Err: err}
}

// syntaxError turns the YAML library's error ("yaml: line N: ...") into
// an Error at the start of that line.
func (r *reader) syntaxError(err error) *Error {
	msg := err.Error()
	line := 0
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if num, tail, ok := strings.Cut(rest, ":"); ok {
			if n, e := strconv.Atoi(num); e == nil {
				line, msg = n, "yaml:"+tail
			}
		}
	}
	e := &Error{File: r.file, Err: errors.New(msg)}
	if line > 0 {
		e.Line, e.Column, e.Offset = line, 1, r.offset(line, 1)
	}
	return e
}

// lineStarts is the byte offset where each line begins.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// offset turns a line and column (from 1; the column counts characters)
// into a byte offset, clamped to the file.
func (r *reader) offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(r.lines) {
		return len(r.data)
	}
	off := r.lines[line-1]
	for c := 1; c < col && off < len(r.data) && r.data[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(r.data[off:])
		off += size
	}
	return off
}
