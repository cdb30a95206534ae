package limits

import (
	"fmt"
	"sort"
	"strings"
)

// Enforce is AccountingStorageEnforce: what slurmctld enforces.
type Enforce uint8

// AccountingStorageEnforce options.
const (
	// EnforceAssociations refuses jobs whose association is not known.
	EnforceAssociations Enforce = 1 << iota
	// EnforceLimits enforces the association and QOS limits.
	EnforceLimits
	// EnforceQOS requires a valid QOS for every job.
	EnforceQOS
	// EnforceSafe starts a job under a TRES-minutes limit only if it can
	// run to completion.
	EnforceSafe
	// EnforceWCKeys checks wckeys (kept, not modelled).
	EnforceWCKeys
	// EnforceNoJobs and EnforceNoSteps keep job and step records out of the
	// database (kept, no effect on limits).
	EnforceNoJobs
	EnforceNoSteps
)

var enforceNames = []struct {
	e    Enforce
	name string
}{
	{EnforceAssociations, "associations"}, {EnforceLimits, "limits"}, {EnforceQOS, "qos"},
	{EnforceSafe, "safe"}, {EnforceWCKeys, "wckeys"}, {EnforceNoJobs, "nojobs"}, {EnforceNoSteps, "nosteps"},
}

// ParseEnforce reads AccountingStorageEnforce ("associations,limits,safe")
// with slurm.conf's implications: limits, qos and wckeys imply
// associations; safe implies limits; nojobs implies nosteps. "all" is every
// option but nojobs and nosteps, "none" or "" is nothing.
func ParseEnforce(s string) (Enforce, error) {
	var e Enforce
	for _, item := range strings.Split(s, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		switch item {
		case "", "none", "0":
			continue
		case "all":
			e |= EnforceAssociations | EnforceLimits | EnforceQOS | EnforceSafe | EnforceWCKeys
			continue
		}
		found := false
		for _, n := range enforceNames {
			if n.name == item {
				e |= n.e
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown AccountingStorageEnforce option %q", item)
		}
	}
	if e&EnforceSafe != 0 {
		e |= EnforceLimits
	}
	if e&(EnforceLimits|EnforceQOS|EnforceWCKeys) != 0 {
		e |= EnforceAssociations
	}
	if e&EnforceNoJobs != 0 {
		e |= EnforceNoSteps
	}
	return e, nil
}

// String is the option list.
func (e Enforce) String() string {
	var parts []string
	for _, n := range enforceNames {
		if e&n.e != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ",")
}

// Partition is what limits need of a slurm.conf partition. Times are
// minutes (Infinite: UNLIMITED); node counts Infinite when unset.
type Partition struct {
	Name string
	// QOS is the partition QOS (empty: none).
	QOS                  string
	MaxTime, DefaultTime uint32
	MinNodes, MaxNodes   uint32
	// Billing are the TRESBillingWeights (nil: billing is the CPU count).
	Billing *BillingWeights
}

// NewPartition returns a partition with no limits.
func NewPartition(name string) *Partition {
	return &Partition{Name: name, MaxTime: Infinite, DefaultTime: Infinite, MinNodes: 1, MaxNodes: Infinite}
}

type assocKey struct{ user, account, partition string }

// Policy is a cluster's accounting policy: its TRES, association tree,
// QOS, partitions and AccountingStorageEnforce, with the usage of running
// and pending jobs. It is not safe for concurrent use.
type Policy struct {
	TRES    *TRESList
	Cluster string
	Root    *Assoc
	Enforce Enforce
	// BillingMode is PriorityFlags' MAX_TRES choice.
	BillingMode BillingMode
	// DecayHalfLife is PriorityDecayHalfLife in seconds (0: no decay).
	DecayHalfLife int64

	qos        map[string]*QOS
	qosOrder   []*QOS
	partitions map[string]*Partition
	accounts   map[string]*Assoc
	users      map[assocKey]*Assoc
	defAccount map[string]string
	scratch    scratch
	// failQOS or failAssoc is the level the last failed check stopped at.
	failQOS   *QOS
	failAssoc *Assoc
}

// NewPolicy returns a policy with only the root association of the
// cluster, enforcing associations and limits.
func NewPolicy(tres *TRESList, cluster string) *Policy {
	p := &Policy{
		TRES: tres, Cluster: cluster, Enforce: EnforceAssociations | EnforceLimits,
		qos: map[string]*QOS{}, partitions: map[string]*Partition{},
		accounts: map[string]*Assoc{}, users: map[assocKey]*Assoc{}, defAccount: map[string]string{},
	}
	p.Root = p.newAssoc("root", "", "", nil)
	p.accounts["root"] = p.Root
	p.scratch = newScratch(tres.Len())
	return p
}

func (p *Policy) newAssoc(account, user, partition string, parent *Assoc) *Assoc {
	a := &Assoc{Account: account, User: user, Partition: partition, Parent: parent, Fairshare: Infinite,
		Limits: newAssocLimits(p.TRES.Len())}
	a.usage = newAssocUsage(p.TRES.Len())
	if parent != nil {
		parent.Children = append(parent.Children, a)
	}
	a.inherit()
	return a
}

// AddAccount adds an account under parent ("root" for the top).
func (p *Policy) AddAccount(name, parent string) (*Assoc, error) {
	name = strings.ToLower(name)
	if _, ok := p.accounts[name]; ok {
		return nil, fmt.Errorf("account %q defined twice", name)
	}
	par, ok := p.accounts[strings.ToLower(parent)]
	if !ok {
		return nil, fmt.Errorf("account %q: parent account %q not defined", name, parent)
	}
	a := p.newAssoc(name, "", "", par)
	p.accounts[name] = a
	return a, nil
}

// AddUser adds a user's association under an account, for one partition
// or (partition empty) for all.
func (p *Policy) AddUser(user, account, partition string) (*Assoc, error) {
	account = strings.ToLower(account)
	par, ok := p.accounts[account]
	if !ok {
		return nil, fmt.Errorf("user %q: account %q not defined", user, account)
	}
	k := assocKey{user, account, partition}
	if _, ok := p.users[k]; ok {
		return nil, fmt.Errorf("user %q under account %q defined twice", user, account)
	}
	a := p.newAssoc(account, user, partition, par)
	p.users[k] = a
	return a, nil
}

// SetDefaultAccount sets the account a job of user runs under when it
// names none (the user's DefaultAccount).
func (p *Policy) SetDefaultAccount(user, account string) {
	p.defAccount[user] = strings.ToLower(account)
}

// DefaultAccount is the user's DefaultAccount ("" if none is known).
func (p *Policy) DefaultAccount(user string) string { return p.defAccount[user] }

// Account is an account's association.
func (p *Policy) Account(name string) *Assoc { return p.accounts[strings.ToLower(name)] }

// User is the association a job of user under account in partition runs
// under: the partition's own association if there is one, else the
// user's association for all partitions.
func (p *Policy) User(user, account, partition string) *Assoc {
	account = strings.ToLower(account)
	if partition != "" {
		if a, ok := p.users[assocKey{user, account, partition}]; ok {
			return a
		}
	}
	return p.users[assocKey{user, account, ""}]
}

// AddQOS adds a QOS (replacing one of the same name).
func (p *Policy) AddQOS(q *QOS) {
	if old, ok := p.qos[q.Name]; ok {
		for i, o := range p.qosOrder {
			if o == old {
				p.qosOrder[i] = q
			}
		}
	} else {
		p.qosOrder = append(p.qosOrder, q)
	}
	q.usage = newQOSUsage(p.TRES.Len())
	p.qos[q.Name] = q
}

// QOS is a QOS by name.
func (p *Policy) QOS(name string) *QOS { return p.qos[name] }

// QOSList is every QOS in the order added.
func (p *Policy) QOSList() []*QOS { return p.qosOrder }

// AddPartition adds a partition (replacing one of the same name).
func (p *Policy) AddPartition(part *Partition) { p.partitions[part.Name] = part }

// Partition is a partition by name.
func (p *Policy) Partition(name string) *Partition { return p.partitions[name] }

// Partitions are the partitions sorted by name.
func (p *Policy) Partitions() []*Partition {
	out := make([]*Partition, 0, len(p.partitions))
	for _, part := range p.partitions {
		out = append(out, part)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Finish applies slurmdbd's inheritance after the tree or its limits
// changed; call it before checking jobs.
func (p *Policy) Finish() { p.Root.inherit() }

// Walk calls f for every association, parents before children, children
// in the order added.
func (p *Policy) Walk(f func(a *Assoc)) {
	var walk func(a *Assoc)
	walk = func(a *Assoc) {
		f(a)
		for _, c := range a.Children {
			walk(c)
		}
	}
	walk(p.Root)
}
