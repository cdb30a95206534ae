package priority

import (
	"math"

	"github.com/nodesift/sift/limits"
)

// Node is one association as the fair-share calculation sees it
// (slurmdb_assoc_usage_t's fair-share fields). Values are those of the
// last Shares.Compute.
type Node struct {
	Assoc *limits.Assoc
	// Parent is the direct parent; FSParent the nearest ancestor whose
	// Fairshare is not "parent" (fs_assoc_ptr), whose children list this
	// association is on.
	Parent, FSParent *Node
	// Children are the associations whose FSParent this is
	// (children_list), in the tree's order.
	Children []*Node

	// SharesRaw is the association's Fairshare (1 when unset,
	// limits.FairshareParent for "parent"); LevelShares the sum of its
	// siblings' (and its own) shares.
	SharesRaw, LevelShares uint32
	// SharesNorm is the normalised share (NormShares).
	SharesNorm float64
	// UsageRaw is the decayed usage in billing-TRES seconds (RawUsage);
	// UsageNorm the fraction of root's (NormUsage; Slurm's NO_VAL until a
	// calculation reaches the association, and always for root);
	// UsageEfctv the effective usage (EffectvUsage).
	UsageRaw, UsageNorm, UsageEfctv float64
	// LevelFS is Fair Tree's level fair-share (LevelFS); FSFactor the
	// fair-share factor of a user's jobs (FairShare).
	LevelFS, FSFactor float64
	// RunSecs are the TRES-seconds running jobs still have to their time
	// limits (grp_used_tres_run_secs), per TRES.
	RunSecs []float64

	isUser bool
	// efctvSet is false where Slurm's usage_efctv is NO_VAL: a user whose
	// effective usage the classic calculation has not reached.
	efctvSet bool
}

// IsUser reports whether the node is a user association.
func (n *Node) IsUser() bool { return n.isUser }

// Shares holds the fair-share state of an association tree: the shares
// (assoc_mgr's level shares and normalised shares), the usage, and the
// effective usage, level fair-share and fair-share factor of each
// association.
type Shares struct {
	policy    *limits.Policy
	flags     Flags
	dampening float64
	// Root is the cluster's root association.
	Root *Node
	// Nodes are every association, parents before children, in the tree's
	// order.
	Nodes   []*Node
	byAssoc map[*limits.Assoc]*Node
	users   int
}

// NewShares builds the fair-share view of p's association tree. flags
// choose Fair Tree or classic (and DEPTH_OBLIVIOUS); dampening is
// FairShareDampeningFactor (0 taken as 1). Usage starts at zero.
func NewShares(p *limits.Policy, flags Flags, dampening uint16) *Shares {
	s := &Shares{policy: p, flags: flags, dampening: float64(max(dampening, 1)), byAssoc: map[*limits.Assoc]*Node{}}
	n := p.TRES.Len()
	p.Walk(func(a *limits.Assoc) {
		// usage_norm starts as NO_VAL (slurmdb_create_assoc_usage) until a
		// calculation reaches the association; root's never does.
		nd := &Node{Assoc: a, SharesRaw: a.Fairshare, isUser: a.IsUser(), RunSecs: make([]float64, n), UsageNorm: noVal}
		if nd.SharesRaw == limits.Infinite || nd.SharesRaw == limits.NoVal {
			nd.SharesRaw = 1
		}
		if a.Parent == nil {
			s.Root = nd
		} else {
			nd.Parent = s.byAssoc[a.Parent]
		}
		if nd.isUser {
			s.users++
		}
		s.byAssoc[a] = nd
		s.Nodes = append(s.Nodes, nd)
	})
	for _, nd := range s.Nodes {
		if nd.Parent == nil {
			continue
		}
		// _find_assoc_parent(..., false): climb while the association (or,
		// for one that is not "parent", its parent) is "parent".
		fs := nd.Parent
		if nd.SharesRaw == limits.FairshareParent || fs.SharesRaw == limits.FairshareParent {
			for fs.Parent != nil && fs.SharesRaw == limits.FairshareParent {
				fs = fs.Parent
			}
		}
		nd.FSParent = fs
		fs.Children = append(fs.Children, nd)
	}
	s.setShares()
	return s
}

// Node is the node of an association (nil if it is not in the tree).
func (s *Shares) Node(a *limits.Assoc) *Node { return s.byAssoc[a] }

// Flags are the PriorityFlags the shares were built with.
func (s *Shares) Flags() Flags { return s.flags }

// childShares is _get_children_level_shares: the shares of a node's
// children, a "parent" child counting its own children's.
func childShares(n *Node) uint32 {
	var sum uint32
	for _, c := range n.Children {
		if c.SharesRaw == limits.FairshareParent {
			sum += childShares(c)
		} else {
			sum += c.SharesRaw
		}
	}
	return sum
}

// setShares sets level shares and normalised shares as assoc_mgr does on
// loading the tree.
func (s *Shares) setShares() {
	for _, n := range s.Nodes {
		if len(n.Children) == 0 {
			continue
		}
		ls := childShares(n)
		for _, c := range n.Children {
			c.LevelShares = ls
		}
	}
	for _, n := range s.Nodes {
		if s.flags&FairTree != 0 {
			fs := n
			if n.SharesRaw == limits.FairshareParent && n.FSParent != nil {
				fs = n.FSParent
			}
			n.SharesNorm = 0
			if fs.LevelShares != 0 {
				n.SharesNorm = float64(fs.SharesRaw) / float64(fs.LevelShares)
			}
			continue
		}
		if n.SharesRaw == limits.FairshareParent && n.FSParent != nil {
			// The parent's value, computed earlier in walk order.
			n.SharesNorm = n.FSParent.SharesNorm
			continue
		}
		norm := 1.0
		for a := n; a.Parent != nil; a = a.Parent {
			if a.SharesRaw == limits.FairshareParent {
				continue
			}
			if a.LevelShares == 0 {
				norm = 0
			} else {
				norm *= float64(a.SharesRaw) / float64(a.LevelShares)
			}
		}
		n.SharesNorm = norm
	}
}

// usageNorm is set_assoc_usage_norm.
func (s *Shares) usageNorm(n *Node) {
	r := s.Root.UsageRaw
	if r == 0 {
		n.UsageNorm = 0
		return
	}
	n.UsageNorm = math.Min(n.UsageRaw/r, 1)
}

// Compute recalculates usage_norm, effective usage, level fair-share and
// the fair-share factors from the current usage: Fair Tree's traversal, or
// the classic calculation of every account's effective usage and each
// user's factor.
func (s *Shares) Compute() {
	s.Root.UsageEfctv, s.Root.efctvSet = 1, true
	if s.flags&FairTree != 0 {
		s.fairTree()
		return
	}
	s.classic()
}
