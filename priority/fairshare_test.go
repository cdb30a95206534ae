package priority

import (
	"math"
	"strings"
	"testing"

	"github.com/nodesift/sift/limits"
)

// docTree is the tree of Slurm's classic fair-share documentation
// (doc/html/classic_fair_share.shtml, "Example"): accounts A (40 shares)
// and D (60) under root, B (30) and C (10) under A, E (25) and F (35)
// under D; user1 in B, user2 and user3 (one share each) in C, user4 in E,
// user5 in F. Usage as fractions of the machine: user1 0.2, user2 0.25,
// user4 0.25.
const docTree = `Cluster - 'c':Fairshare=1
Parent - 'root'
Account - 'A':Fairshare=40
Account - 'D':Fairshare=60
Parent - 'A'
Account - 'B':Fairshare=30
Account - 'C':Fairshare=10
Parent - 'D'
Account - 'E':Fairshare=25
Account - 'F':Fairshare=35
Parent - 'B'
User - 'user1':DefaultAccount='B':Fairshare=1
Parent - 'C'
User - 'user2':DefaultAccount='C':Fairshare=1
User - 'user3':DefaultAccount='C':Fairshare=1
Parent - 'E'
User - 'user4':DefaultAccount='E':Fairshare=1
Parent - 'F'
User - 'user5':DefaultAccount='F':Fairshare=1
`

func readTree(t *testing.T, dump string) *limits.Policy {
	t.Helper()
	tl, err := limits.NewTRESList()
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := limits.ReadDump("tree.dump", []byte(dump), tl)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// charge sets raw usage on a user association and every ancestor.
func charge(s *Shares, p *limits.Policy, user, account string, raw float64) {
	for n := s.Node(p.User(user, account, "")); n != nil; n = n.Parent {
		n.UsageRaw += raw
	}
}

func docShares(t *testing.T, flags Flags) (*Shares, *limits.Policy) {
	p := readTree(t, docTree)
	s := NewShares(p, flags, 1)
	charge(s, p, "user1", "B", 200)
	charge(s, p, "user2", "C", 250)
	charge(s, p, "user4", "E", 250)
	// The rest of the machine's time went unused: root holds the whole.
	s.Root.UsageRaw = 1000
	s.Compute()
	return s, p
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The documentation's worked example, to the digits it prints.
func TestClassicFairShareOnTheDocumentationExample(t *testing.T) {
	s, p := docShares(t, 0)
	users := []struct {
		user, account     string
		norm, efctv, fact float64
	}{
		{"user1", "B", 0.3, 0.3875, 0.408479},
		{"user2", "C", 0.05, 0.275, 0.022097},
		{"user3", "C", 0.05, 0.15, 0.125000},
		{"user4", "E", 0.25, 0.25, 0.500000},
		{"user5", "F", 0.35, 0.1458, 0.749154},
	}
	for _, u := range users {
		n := s.Node(p.User(u.user, u.account, ""))
		if !near(n.SharesNorm, u.norm, 1e-9) || !near(n.UsageEfctv, u.efctv, 1e-4) || !near(n.FSFactor, u.fact, 1e-4) {
			t.Errorf("%s: norm shares %f effective usage %f factor %f, want %f %f %f",
				u.user, n.SharesNorm, n.UsageEfctv, n.FSFactor, u.norm, u.efctv, u.fact)
		}
	}
	accounts := map[string]float64{"A": 0.45, "D": 0.25, "B": 0.3875, "C": 0.3, "E": 0.25, "F": 0.1458}
	for name, want := range accounts {
		if n := s.Node(p.Account(name)); !near(n.UsageEfctv, want, 1e-4) {
			t.Errorf("account %s effective usage %f, want %f", name, n.UsageEfctv, want)
		}
	}
}

// Fair Tree on the same tree. The documentation gives the rules, not
// numbers, for this tree; the expected ranks follow from them (no
// recording): at root D (LF 0.6/0.25 = 2.4) before A (0.4/0.45); under D
// F (unused, LF infinite) before E; under A, B (0.75/(0.2/0.45)) before C;
// in C user3 (unused) before user2.
func TestFairTreeRanksUsersDepthFirstByLevelFairShare(t *testing.T) {
	s, p := docShares(t, FairTree)
	want := map[string]float64{"user5": 5, "user4": 4, "user1": 3, "user3": 2, "user2": 1}
	for user, rank := range want {
		var n *Node
		for _, acct := range []string{"B", "C", "E", "F"} {
			if a := p.User(user, acct, ""); a != nil {
				n = s.Node(a)
			}
		}
		if got := n.FSFactor; got != rank/5 {
			t.Errorf("%s: factor %v, want %v", user, got, rank/5)
		}
	}
	lf := map[string]float64{"A": 0.4 / 0.45, "D": 2.4, "B": 0.75 / (200.0 / 450), "C": 0.25 / (250.0 / 450), "E": (25.0 / 60) / 1}
	for name, want := range lf {
		if n := s.Node(p.Account(name)); !near(n.LevelFS, want, 1e-12) {
			t.Errorf("account %s LevelFS %v, want %v", name, n.LevelFS, want)
		}
	}
	if n := s.Node(p.Account("F")); !math.IsInf(n.LevelFS, 1) {
		t.Errorf("unused F: LevelFS %v, want +Inf", n.LevelFS)
	}
}

// The three tie rules of the Fair Tree documentation ("Ties").
func TestFairTreeTies(t *testing.T) {
	// u1 and u2 are siblings with equal LF: same rank. Account X ties
	// with user u3 at root: X's first user gets u3's rank. Accounts Y and
	// Z tie: their users are ranked together, merged.
	p := readTree(t, `Cluster - 'c':Fairshare=1
Parent - 'root'
User - 'u3':DefaultAccount='root':Fairshare=1
Account - 'X':Fairshare=1
Account - 'Y':Fairshare=1
Account - 'Z':Fairshare=1
Parent - 'X'
User - 'u1':DefaultAccount='X':Fairshare=1
User - 'u2':DefaultAccount='X':Fairshare=1
Parent - 'Y'
User - 'y1':DefaultAccount='Y':Fairshare=1
Parent - 'Z'
User - 'z1':DefaultAccount='Z':Fairshare=1
User - 'z2':DefaultAccount='Z':Fairshare=3
`)
	s := NewShares(p, FairTree, 1)
	charge(s, p, "u3", "root", 100)
	charge(s, p, "u1", "X", 50)
	charge(s, p, "u2", "X", 50)
	charge(s, p, "y1", "Y", 200)
	charge(s, p, "z1", "Z", 100)
	charge(s, p, "z2", "Z", 100)
	s.Compute()
	// Root level: all four have S 0.25; U: u3 0.2, X 0.2, Y 0.4, Z 0.4.
	// u3 and X tie (LF 1.25), users first: u3 rank 6; X's users tie with
	// it and each other: rank 6; then Y and Z tie (LF 0.625) and merge:
	// y1 (S 1, U 1: LF 1), z2 (S .75, U .5: 1.5), z1 (S .25, U .5: .5)
	// sorted z2, y1, z1: ranks 3, 2, 1.
	want := map[[2]string]uint32{{"u3", "root"}: 6, {"u1", "X"}: 6, {"u2", "X"}: 6,
		{"z2", "Z"}: 3, {"y1", "Y"}: 2, {"z1", "Z"}: 1}
	for k, rank := range want {
		n := s.Node(p.User(k[0], k[1], ""))
		if got := n.FSFactor * 6; !near(got, float64(rank), 1e-12) {
			t.Errorf("%s/%s: rank %v, want %d", k[0], k[1], got, rank)
		}
	}
}

func TestFairshareParentCountsWithTheParent(t *testing.T) {
	p := readTree(t, `Cluster - 'c':Fairshare=1
Parent - 'root'
Account - 'A':Fairshare=1
Account - 'B':Fairshare=1
Parent - 'A'
User - 'a1':DefaultAccount='A':Fairshare=parent
User - 'a2':DefaultAccount='A':Fairshare=parent
Parent - 'B'
Account - 'P':Fairshare=parent
Parent - 'P'
User - 'p1':DefaultAccount='P':Fairshare=2
User - 'p2':DefaultAccount='P':Fairshare=2
`)
	for _, flags := range []Flags{FairTree, 0} {
		s := NewShares(p, flags, 1)
		charge(s, p, "a1", "A", 30)
		charge(s, p, "p1", "P", 10)
		s.Compute()
		pn := s.Node(p.Account("P"))
		if pn.FSParent != s.Node(p.Account("B")) {
			t.Fatalf("flags %v: P's fair-share parent is not B", flags)
		}
		p1 := s.Node(p.User("p1", "P", ""))
		if p1.FSParent != s.Node(p.Account("B")) || p1.LevelShares != 4 || p1.SharesNorm == 0 {
			t.Errorf("flags %v: p1 under %v, level shares %d, norm %v", flags, p1.FSParent.Assoc.Account, p1.LevelShares, p1.SharesNorm)
		}
		a1, a2 := s.Node(p.User("a1", "A", "")), s.Node(p.User("a2", "A", ""))
		if a1.FSFactor != a2.FSFactor {
			t.Errorf("flags %v: parent users differ: %v %v", flags, a1.FSFactor, a2.FSFactor)
		}
		rows := s.Rows(p.TRES.Len())
		var b strings.Builder
		if err := WriteSshare(&b, rows, SshareOptions{Parsable: true, Flags: flags}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "  a|a1|parent|") {
			t.Errorf("flags %v: sshare shows no parent row:\n%s", flags, b.String())
		}
	}
}
