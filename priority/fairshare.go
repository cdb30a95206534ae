package priority

import (
	"math"
	"sort"

	"github.com/nodesift/sift/limits"
)

// noVal is Slurm's NO_VAL as a long double: the level fair-share of a
// "parent" account and of root.
const noVal = float64(limits.NoVal)

// fairTree is fair_tree.c's _apply_priority_fs: rank every user by
// walking the tree from root, siblings in decreasing level fair-share, and
// give each user rank/users as its factor.
func (s *Shares) fairTree() {
	s.Root.LevelFS = noVal
	rank, rnt := uint32(s.users), uint32(s.users)
	s.fairTreeLevel(append([]*Node(nil), s.Root.Children...), &rank, &rnt, false)
}

// levelFS is _calc_assoc_fs: LF = S / U, with U the usage within the
// parent and S the normalised shares.
func (s *Shares) levelFS(n *Node) {
	n.UsageEfctv, n.efctvSet = 0, true
	if p := n.FSParent; p != nil && p.UsageRaw != 0 {
		n.UsageEfctv = n.UsageRaw / p.UsageRaw
	}
	s.usageNorm(n)
	if n.SharesRaw == limits.FairshareParent {
		n.LevelFS = noVal
		if n.isUser {
			n.LevelFS = math.Inf(1)
		}
		return
	}
	if n.SharesNorm == 0 {
		n.LevelFS = 0
		return
	}
	n.LevelFS = n.SharesNorm / n.UsageEfctv // +Inf when unused
}

func (s *Shares) fairTreeLevel(siblings []*Node, rank, rnt *uint32, accountTied bool) {
	for _, n := range siblings {
		s.levelFS(n)
	}
	// Higher level fair-share first; on a tie users before accounts.
	sort.SliceStable(siblings, func(i, j int) bool {
		a, b := siblings[i], siblings[j]
		if a.LevelFS != b.LevelFS {
			return a.LevelFS > b.LevelFS
		}
		return a.isUser && !b.isUser
	})
	prev := noVal
	for i := 0; i < len(siblings); i++ {
		n := siblings[i]
		tied := prev == n.LevelFS
		if i == 0 && accountTied {
			tied = true
		}
		if n.isUser {
			if !tied {
				*rank = *rnt
			}
			n.FSFactor = float64(*rank) / float64(s.users)
			*rnt--
		} else {
			// Accounts tied with this one (users sort before accounts, so
			// the run of equal accounts is contiguous) share one level.
			end := i
			for end+1 < len(siblings) && !siblings[end+1].isUser && siblings[end+1].LevelFS == n.LevelFS {
				end++
			}
			var merged []*Node
			for _, a := range siblings[i : end+1] {
				merged = append(merged, a.Children...)
			}
			s.fairTreeLevel(merged, rank, rnt, tied)
			i = end
		}
		prev = n.LevelFS
	}
}

// classic is the calculation of PriorityFlags=NO_FAIR_TREE (and
// DEPTH_OBLIVIOUS): every account's effective usage from the top down,
// then each user's effective usage and factor.
func (s *Shares) classic() {
	s.classicAccounts()
	s.classicUsers()
}

// ComputeAccounts is the first half of a classic (NO_FAIR_TREE)
// calculation: slurmctld's decay thread computes every account's
// effective usage before it charges the running jobs' new usage, and the
// users' afterwards (ComputeUsers). Set the usage of before the run, call
// ComputeAccounts, set the usage after, call ComputeUsers. Under Fair
// Tree it is Compute.
func (s *Shares) ComputeAccounts() {
	s.Root.UsageEfctv, s.Root.efctvSet = 1, true
	if s.flags&FairTree != 0 {
		s.Compute()
		return
	}
	s.classicAccounts()
}

// ComputeUsers is the second half of a classic calculation (see
// ComputeAccounts): each user's normalised and effective usage and
// factor from the current usage. Under Fair Tree it does nothing.
func (s *Shares) ComputeUsers() {
	if s.flags&FairTree != 0 {
		return
	}
	s.classicUsers()
}

// classicAccounts is _set_children_usage_efctv from root: accounts get
// their effective usage and factor; users are marked not computed.
//
// Each account's usage_norm is set as the walk reaches it
// (priority_p_set_assoc_usage), and users' not at all, so DEPTH_OBLIVIOUS's
// sum over siblings sees the previous value (NO_VAL after a start) for
// siblings later in the list, as slurmctld does.
func (s *Shares) classicAccounts() {
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, c := range n.Children {
			if c.isUser {
				c.efctvSet = false
				continue
			}
			s.setAssocUsage(c)
			walk(c)
		}
	}
	walk(s.Root)
}

// classicUsers computes the users whose effective usage is not set, as
// the first job priority or sshare of each user does.
func (s *Shares) classicUsers() {
	for _, n := range s.Nodes {
		if n.isUser && !n.efctvSet {
			s.setAssocUsage(n)
		}
	}
}

// setAssocUsage is priority_p_set_assoc_usage for the classic
// calculation: normalised usage, effective usage, factor.
func (s *Shares) setAssocUsage(n *Node) {
	s.usageNorm(n)
	switch p := n.FSParent; {
	case p == s.Root:
		n.UsageEfctv = n.UsageNorm
	case n.SharesRaw == limits.FairshareParent:
		n.UsageEfctv = p.UsageEfctv
	case s.flags&DepthOblivious != 0:
		s.depthOblivious(n)
	default:
		if n.LevelShares == 0 {
			n.UsageEfctv = p.UsageEfctv
		} else {
			n.UsageEfctv = n.UsageNorm + (p.UsageEfctv-n.UsageNorm)*(float64(n.SharesRaw)/float64(n.LevelShares))
		}
	}
	n.efctvSet = true
	fs := n
	if n.SharesRaw == limits.FairshareParent {
		fs = n.FSParent
	}
	if !fs.efctvSet || fs.SharesNorm <= 0 {
		n.FSFactor = 0
		return
	}
	n.FSFactor = math.Pow(2, -((fs.UsageEfctv / fs.SharesNorm) / s.dampening))
}

// depthOblivious is _depth_oblivious_set_usage_efctv: R = Rp × Rl^k, with
// k pulling R back towards 1 when the parent's ratio is off.
func (s *Shares) depthOblivious(n *Node) {
	p := n.FSParent
	if n.SharesNorm == 0 || p.SharesNorm == 0 || p.UsageEfctv == 0 || n.UsageNorm == 0 {
		n.UsageEfctv = n.UsageNorm
		return
	}
	const f = 5.0
	ratioP := p.UsageEfctv / p.SharesNorm
	var ratioS float64
	for _, c := range p.Children {
		if c.SharesRaw != limits.FairshareParent {
			ratioS += c.UsageNorm
		}
	}
	ratioS /= p.SharesNorm
	ratioL := (n.UsageNorm / n.SharesNorm) / ratioS
	k := 1.0
	if ratioP != 0 && ratioL != 0 && math.Log(ratioP)*math.Log(ratioL) < 0 {
		k = 1 / (1 + math.Pow(f*math.Log(ratioP), 2))
	}
	n.UsageEfctv = ratioP * math.Pow(ratioL, k) * n.SharesNorm
}
