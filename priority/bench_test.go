package priority

import (
	"fmt"
	"testing"

	"github.com/nodesift/sift/limits"
)

// benchSetup builds a tree of assocs associations (accounts of 99 users
// under root), usage on every user, and pending jobs spread over them.
func benchSetup(b *testing.B, assocs, jobs int, flags Flags) (*Multifactor, []*Job, []uint32) {
	b.Helper()
	tl, err := limits.NewTRESList()
	if err != nil {
		b.Fatal(err)
	}
	p := limits.NewPolicy(tl, "c")
	q := limits.NewQOS("normal", tl.Len())
	q.Priority = 10
	p.AddQOS(q)
	var users [][2]string
	for a := 0; len(users)+a < assocs; a++ {
		acct := fmt.Sprintf("acct%d", a)
		as, err := p.AddAccount(acct, "root")
		if err != nil {
			b.Fatal(err)
		}
		as.Fairshare = uint32(1 + a%7)
		for u := 0; u < 99 && len(users)+a+1 < assocs; u++ {
			name := fmt.Sprintf("user%d", len(users))
			ua, err := p.AddUser(name, acct, "")
			if err != nil {
				b.Fatal(err)
			}
			ua.Fairshare = uint32(1 + u%5)
			users = append(users, [2]string{name, acct})
		}
	}
	p.Finish()
	cfg := DefaultConfig()
	cfg.Flags = flags
	cfg.WeightAge, cfg.WeightFairshare, cfg.WeightJobSize, cfg.WeightPartition, cfg.WeightQOS = 1000, 10000, 500, 100, 2000
	cfg.WeightTRES = "CPU=100,Mem=10"
	ptres := make(limits.Vector, tl.Len())
	ptres[limits.TRESCPU], ptres[limits.TRESMem] = 100000, 400000000
	m, err := New(cfg, p, Cluster{CPUs: 100000, Nodes: 1000, Partitions: []Partition{{Name: "batch", JobFactor: 1, TRES: ptres}}})
	if err != nil {
		b.Fatal(err)
	}
	for i, u := range users {
		for n := m.Shares.Node(p.User(u[0], u[1], "")); n != nil; n = n.Parent {
			n.UsageRaw += float64(1 + i%13*1000)
		}
	}
	js := make([]*Job, jobs)
	prio := make([]uint32, jobs)
	for i := range js {
		u := users[i%len(users)]
		tres := make(limits.Vector, tl.Len())
		tres[limits.TRESCPU], tres[limits.TRESMem] = uint64(1+i%64), uint64(1000*(1+i%64))
		j := &Job{ID: uint32(i + 1), User: u[0], Account: u[1], Partitions: []string{"batch"}, Submit: 1000,
			Eligible: 1000, Accrue: 1000 + int64(i%5000), MinNodes: 1, CPUs: uint32(1 + i%64), TimeLimit: 60, TRES: tres}
		if err := m.Bind(j); err != nil {
			b.Fatal(err)
		}
		js[i], prio[i] = j, 1
	}
	return m, js, prio
}

// One recalculation of the decay thread: fair-share over the tree, then
// every pending job's priority.
func BenchmarkRecompute(b *testing.B) {
	for _, c := range []struct {
		name  string
		flags Flags
	}{{"fairtree", FairTree}, {"classic", 0}} {
		b.Run(fmt.Sprintf("%s/assocs=10000/jobs=100000", c.name), func(b *testing.B) {
			m, js, prio := benchSetup(b, 10000, 100000, c.flags)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Shares.Compute()
				m.Recompute(js, prio, 100000)
			}
		})
	}
}
