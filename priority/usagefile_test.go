package priority

import (
	"errors"
	"testing"

	"github.com/nodesift/sift/position"
)

func TestReadSshareUsageSetsEachAssociation(t *testing.T) {
	p := readTree(t, docTree)
	s := NewShares(p, FairTree, 1)
	in := "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n" +
		"root|||0.000000|1000|1.000000|\n" +
		" a||40|0.400000|450|0.450000|\n" +
		"  b||30|0.750000|200|0.444444|\n" +
		"   b|user1|1|1.000000|200|1.000000|0.600000\n" +
		" gone||1|0.1|77|0|\n"
	skipped, err := ReadSshareUsage([]byte(in), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || skipped[0] != "gone" {
		t.Errorf("skipped %v", skipped)
	}
	if s.Root.UsageRaw != 1000 || s.Node(p.Account("a")).UsageRaw != 450 || s.Node(p.User("user1", "b", "")).UsageRaw != 200 {
		t.Errorf("usage root %v a %v user1 %v", s.Root.UsageRaw, s.Node(p.Account("a")).UsageRaw, s.Node(p.User("user1", "b", "")).UsageRaw)
	}
}

func TestReadSshareUsageErrorsPointAtTheField(t *testing.T) {
	p := readTree(t, docTree)
	tests := []struct {
		in  string
		off int
	}{
		{"", 0},
		{"User|RawUsage\n", 0},
		{"Account|RawShares\n", 0},
		{"Account|User|RawUsage\nroot||x1\n", 28},
		{"Account|User|RawUsage\nroot||-5\n", 28},
	}
	for _, tt := range tests {
		_, err := ReadSshareUsage([]byte(tt.in), NewShares(p, FairTree, 1))
		var ue *UsageFileError
		if !errors.As(err, &ue) {
			t.Errorf("%q: error %v", tt.in, err)
			continue
		}
		if off, _ := position.Of(err); off != tt.off {
			t.Errorf("%q: offset %d, want %d (%v)", tt.in, off, tt.off, err)
		}
	}
}

func FuzzReadSshareUsage(f *testing.F) {
	f.Add([]byte("Account|User|RawShares|NormShares|RawUsage\nroot|||0.000000|1000\n a||40|0.4|450\n"))
	f.Add([]byte("Account|User|Partition|RawUsage\n  b|user1|p1|12\n"))
	f.Add([]byte("RawUsage|Account\n1e300|root\n"))
	p := func(t *testing.T) *Shares { return NewShares(readTree(t, docTree), FairTree, 1) }
	f.Fuzz(func(t *testing.T, data []byte) {
		s := p(t)
		_, err := ReadSshareUsage(data, s)
		if err != nil {
			if off, ok := position.Of(err); !ok || off < 0 || off > len(data) {
				t.Fatalf("error %v without a byte offset in the input", err)
			}
			return
		}
		s.Compute()
	})
}

func FuzzConfigSet(f *testing.F) {
	f.Add("PriorityWeightAge", "1000")
	f.Add("PriorityFlags", "NO_FAIR_TREE,MAX_TRES")
	f.Add("PriorityMaxAge", "7-0")
	f.Add("PriorityUsageResetPeriod", "weekly")
	f.Fuzz(func(t *testing.T, key, value string) {
		c := DefaultConfig()
		ok, err := c.Set(key, value)
		if err != nil && !ok {
			t.Fatalf("error %v for a key not taken", err)
		}
	})
}
