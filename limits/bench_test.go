package limits

import (
	"fmt"
	"testing"
)

// benchPolicy is a tree of assocs associations: 1% accounts three levels
// deep, the rest users, with Grp limits on every account, Max limits on
// users, and a job QOS and partition QOS with limits; 1,000 jobs run.
func benchPolicy(b *testing.B, assocs int) (*Policy, *Job) {
	tl, _ := NewTRESList("gres/gpu", "license/matlab")
	p := NewPolicy(tl, "c")
	p.Enforce |= EnforceSafe
	accounts := assocs / 100
	names := []string{"root"}
	for i := 0; i < accounts; i++ {
		parent := names[(i/10)%len(names)]
		name := fmt.Sprintf("a%d", i)
		a, err := p.AddAccount(name, parent)
		if err != nil {
			b.Fatal(err)
		}
		a.Limits.GrpTRES[TRESCPU] = 1 << 20
		a.Limits.GrpJobs = 1 << 20
		a.Limits.GrpTRESMins[TRESCPU] = 1 << 40
		names = append(names, name)
	}
	var last *Assoc
	for i := 0; len(names)+i < assocs; i++ {
		a, err := p.AddUser(fmt.Sprintf("u%d", i), names[1+i%accounts], "")
		if err != nil {
			b.Fatal(err)
		}
		a.Limits.MaxJobs = 100
		a.Limits.MaxTRESPerJob[TRESCPU] = 1024
		last = a
	}
	for _, n := range []string{"normal", "pq"} {
		q := NewQOS(n, tl.Len())
		q.MaxTRESPerUser[TRESCPU] = 1 << 16
		q.GrpTRES[8] = 1 << 10
		q.MaxJobsPerUser = 1000
		p.AddQOS(q)
	}
	part := NewPartition("batch")
	part.QOS = "pq"
	p.AddPartition(part)
	p.Finish()
	req := make(Vector, tl.Len())
	req[TRESCPU], req[TRESNode], req[TRESMem] = 4, 1, 4000
	for i := 0; i < 1000; i++ {
		j := &Job{ID: uint32(i), User: fmt.Sprintf("u%d", i*7%(assocs-len(names))), Account: "", Partition: "batch", TimeLimit: 60, Req: req, MinNodes: 1}
		j.Account = p.users[assocKey{j.User, names[1+(i*7%(assocs-len(names)))%accounts], ""}].Account
		if err := p.Bind(j); err != nil {
			b.Fatal(err)
		}
		p.Submit(j)
		p.Begin(j, req, []uint32{uint32(i)}, 0)
	}
	j := &Job{ID: 1 << 30, User: last.User, Account: last.Account, Partition: "batch", TimeLimit: 60, Req: req, MinNodes: 1}
	if err := p.Bind(j); err != nil {
		b.Fatal(err)
	}
	return p, j
}

// BenchmarkCheckJob is the cost of checking one job against a tree of
// associations: submit validation, the pre-selection check and the
// post-selection check with its allocation.
func BenchmarkCheckJob(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		p, j := benchPolicy(b, n)
		alloc := append(Vector(nil), j.Req...)
		nodes := []uint32{5000}
		b.Run(fmt.Sprintf("assocs=%d/validate", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				j.TimeLimit = 60
				if err := p.Validate(j); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("assocs=%d/start", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if ok, r := p.PreSelect(j, 100); !ok {
					b.Fatal(r)
				}
				if ok, r := p.PostSelect(j, alloc, nodes, 100); !ok {
					b.Fatal(r)
				}
			}
		})
	}
}
