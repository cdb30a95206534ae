package limits

import (
	"fmt"
	"math/rand"
	"testing"
)

// randomPolicy builds a tree of accounts (depth up to 4) with users, two
// QOS and a partition QOS, with random limits.
func randomPolicy(t testing.TB, rng *rand.Rand, accounts, users int) (*Policy, [][3]string) {
	tl, _ := NewTRESList("gres/gpu")
	p := NewPolicy(tl, "c")
	names := []string{"root"}
	for i := 0; i < accounts; i++ {
		name := fmt.Sprintf("a%d", i)
		if _, err := p.AddAccount(name, names[rng.Intn(len(names))]); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	var who [][3]string
	for i := 0; i < users; i++ {
		u, acct := fmt.Sprintf("u%d", i%(users/2+1)), names[1+rng.Intn(len(names)-1)]
		if p.User(u, acct, "") != nil {
			continue
		}
		a, err := p.AddUser(u, acct, "")
		if err != nil {
			t.Fatal(err)
		}
		if rng.Intn(3) == 0 {
			a.Limits.MaxJobs = uint32(rng.Intn(4))
		}
		who = append(who, [3]string{u, acct})
	}
	for _, n := range names {
		a := p.Account(n)
		if rng.Intn(2) == 0 {
			a.Limits.GrpTRES[TRESCPU] = uint64(rng.Intn(32))
		}
		if rng.Intn(3) == 0 {
			a.Limits.GrpTRES[TRESNode] = uint64(rng.Intn(4))
		}
		if rng.Intn(4) == 0 {
			a.Limits.GrpSubmitJobs = uint32(rng.Intn(10))
		}
	}
	for _, name := range []string{"normal", "high", "pq"} {
		q := NewQOS(name, tl.Len())
		if rng.Intn(2) == 0 {
			q.MaxTRESPerUser[TRESCPU] = uint64(rng.Intn(16))
		}
		if rng.Intn(2) == 0 {
			q.GrpJobs = uint32(rng.Intn(8))
		}
		if rng.Intn(3) == 0 {
			q.Flags |= OverPartQOS
		}
		q.UsageFactor = float64(rng.Intn(3))
		p.AddQOS(q)
	}
	part := NewPartition("batch")
	part.QOS = "pq"
	p.AddPartition(part)
	p.Finish()
	return p, who
}

// TestRandomSequenceCounters drives random submit, start, end and cancel
// events: after each, every association's and QOS's counters equal the
// counts of its jobs (so none went negative), and when every job has
// ended they are all zero.
func TestRandomSequenceCounters(t *testing.T) {
	started := 0
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		p, who := randomPolicy(t, rng, 12, 30)
		p.QOS("normal").GrpJobsAccrue = 3
		if q := p.QOS("high"); q != nil {
			q.MaxJobsAccruePerUser = 1
		}
		p.Account(who[0][1]).Limits.GrpJobsAccrue = 2
		var live []*Job
		now := int64(1000)
		for step := 0; step < 400; step++ {
			now += int64(rng.Intn(120))
			switch op := rng.Intn(5); {
			case op == 4:
				// A pass's queue build: accrue, or stop when held.
				for _, j := range live {
					if !j.Running() && rng.Intn(8) == 0 {
						p.RemoveAccrue(j)
						continue
					}
					p.HandleAccrue(j, !j.Running(), true, now-10, now)
				}
			case op == 0 || len(live) == 0:
				w := who[rng.Intn(len(who))]
				j := &Job{ID: uint32(step), User: w[0], Account: w[1], Partition: "batch",
					QOS: []string{"normal", "high", ""}[rng.Intn(3)], TimeLimit: uint32(1 + rng.Intn(60)),
					ArrayTasks: uint32(rng.Intn(3)), MinNodes: 1}
				j.Req = make(Vector, p.TRES.Len())
				j.Req[TRESCPU] = uint64(1 + rng.Intn(8))
				j.Req[TRESNode] = uint64(1 + rng.Intn(2))
				if err := p.Bind(j); err != nil {
					t.Fatal(err)
				}
				if p.Validate(j) == nil {
					p.Submit(j)
					live = append(live, j)
				}
			case op == 1:
				j := live[rng.Intn(len(live))]
				if j.Running() {
					break
				}
				nodes := []uint32{uint32(rng.Intn(6)), uint32(6 + rng.Intn(6))}[:j.Req[TRESNode]]
				alloc := append(Vector(nil), j.Req...)
				if ok, _ := p.PreSelect(j, now); !ok {
					break
				}
				if ok, _ := p.PostSelect(j, alloc, nodes, now); ok {
					p.Begin(j, alloc, nodes, now)
					started++
				}
			default: // end or cancel
				i := rng.Intn(len(live))
				p.End(live[i], now)
				live = append(live[:i], live[i+1:]...)
			}
			checkCounters(t, p, live, fmt.Sprintf("seed %d step %d", seed, step))
		}
		for _, j := range live {
			p.End(j, now)
		}
		checkCounters(t, p, nil, fmt.Sprintf("seed %d at the end", seed))
		for _, q := range p.QOSList() {
			if q.AccrueCount() != 0 {
				t.Fatalf("seed %d: QOS %s accrue count %d left", seed, q.Name, q.AccrueCount())
			}
			for _, ul := range append(mapValues(q.usage.users), mapValues(q.usage.accounts)...) {
				if ul.accrue != 0 {
					t.Fatalf("seed %d: QOS %s per-user/account accrue count %d left", seed, q.Name, ul.accrue)
				}
			}
		}
		p.Walk(func(a *Assoc) {
			if a.AccrueCount() != 0 {
				t.Fatalf("seed %d: %s accrue count %d left", seed, a.Level(), a.AccrueCount())
			}
		})
		p.Walk(func(a *Assoc) {
			u := &a.usage
			for i := range u.grpUsedTRES {
				if u.grpUsedTRES[i] != 0 || u.run.base[i] != 0 || u.run.rate[i] != 0 {
					t.Fatalf("seed %d: %s TRES %d left: used %d run %d/%d", seed, a.Level(), i, u.grpUsedTRES[i], u.run.base[i], u.run.rate[i])
				}
			}
			if len(u.nodes) != 0 {
				t.Fatalf("seed %d: %s nodes left %v", seed, a.Level(), u.nodes)
			}
		})
		for _, q := range p.QOSList() {
			u := &q.usage
			for _, ul := range append(mapValues(u.users), mapValues(u.accounts)...) {
				if ul.jobs != 0 || ul.submitJobs != 0 || len(ul.nodes) != 0 {
					t.Fatalf("seed %d: QOS %s per-user/account usage left %+v", seed, q.Name, ul)
				}
				for i := range ul.tres {
					if ul.tres[i] != 0 || ul.run.base[i] != 0 || ul.run.rate[i] != 0 {
						t.Fatalf("seed %d: QOS %s per-user/account TRES left", seed, q.Name)
					}
				}
			}
			for i := range u.grpUsedTRES {
				if u.grpUsedTRES[i] != 0 || u.run.base[i] != 0 {
					t.Fatalf("seed %d: QOS %s TRES left", seed, q.Name)
				}
			}
		}
	}
	if started < 200 {
		t.Errorf("only %d jobs started in all seeds: the sequences test little", started)
	}
}

func mapValues(m map[string]*usedLimits) []*usedLimits {
	var out []*usedLimits
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// checkCounters compares every counter with a count over the live jobs.
func checkCounters(t *testing.T, p *Policy, live []*Job, where string) {
	t.Helper()
	accruing := uint32(0)
	for _, j := range live {
		if j.accrueCounted {
			accruing++
		}
	}
	if got := p.Root.AccrueCount(); got != accruing {
		t.Fatalf("%s: root accrue count %d, %d jobs counted", where, got, accruing)
	}
	type counts struct{ submit, run, cpu uint64 }
	assoc := map[*Assoc]*counts{}
	qos := map[*QOS]*counts{}
	for _, j := range live {
		for a := j.submitAssoc; a != nil; a = a.Parent {
			c := assoc[a]
			if c == nil {
				c = &counts{}
				assoc[a] = c
			}
			if j.submitted {
				c.submit += uint64(j.jobCount())
			}
			if j.running {
				c.run++
				c.cpu += j.alloc[TRESCPU]
			}
		}
		for k, q := range append(j.submitQOS[:], j.runQOS[:]...) {
			if q == nil {
				continue
			}
			c := qos[q]
			if c == nil {
				c = &counts{}
				qos[q] = c
			}
			if k < 2 && j.submitted {
				c.submit += uint64(j.jobCount())
			}
			if k >= 2 && j.running {
				c.run++
				c.cpu += j.alloc[TRESCPU]
			}
		}
	}
	p.Walk(func(a *Assoc) {
		c := assoc[a]
		if c == nil {
			c = &counts{}
		}
		u := &a.usage
		if uint64(u.usedSubmitJobs) != c.submit || uint64(u.usedJobs) != c.run || u.grpUsedTRES[TRESCPU] != c.cpu {
			t.Fatalf("%s: %s submit %d run %d cpu %d, jobs say %+v", where, a.Level(), u.usedSubmitJobs, u.usedJobs, u.grpUsedTRES[TRESCPU], *c)
		}
	})
	for _, q := range p.QOSList() {
		c := qos[q]
		if c == nil {
			c = &counts{}
		}
		u := &q.usage
		if uint64(u.grpUsedSubmitJobs) != c.submit || uint64(u.grpUsedJobs) != c.run || u.grpUsedTRES[TRESCPU] != c.cpu {
			t.Fatalf("%s: QOS %s submit %d run %d cpu %d, jobs say %+v", where, q.Name, u.grpUsedSubmitJobs, u.grpUsedJobs, u.grpUsedTRES[TRESCPU], *c)
		}
	}
}
