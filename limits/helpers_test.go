package limits

import "testing"

// fixture is a cluster "c" with accounts phys (under root) and theory
// (under phys), user alice in both, bob in phys, partition "batch" with
// partition QOS "pq", and QOS "normal" (and any the test adds).
type fixture struct {
	t *testing.T
	p *Policy
}

func newFixture(t *testing.T, extraTRES ...string) *fixture {
	t.Helper()
	tl, err := NewTRESList(extraTRES...)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(tl, "c")
	for _, a := range [][2]string{{"phys", "root"}, {"theory", "phys"}} {
		if _, err := p.AddAccount(a[0], a[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range [][2]string{{"alice", "phys"}, {"alice", "theory"}, {"bob", "phys"}} {
		if _, err := p.AddUser(u[0], u[1], ""); err != nil {
			t.Fatal(err)
		}
	}
	p.AddQOS(NewQOS("normal", tl.Len()))
	p.AddQOS(NewQOS("pq", tl.Len()))
	part := NewPartition("batch")
	part.QOS = "pq"
	p.AddPartition(part)
	p.AddPartition(NewPartition("plain"))
	p.Finish()
	return &fixture{t: t, p: p}
}

func (f *fixture) tres(s string) Vector {
	f.t.Helper()
	v, err := f.p.TRES.Parse(s)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// req is a request vector with unset entries at 0.
func (f *fixture) req(s string) Vector {
	v := f.tres(s)
	for i := range v {
		if v[i] == Infinite64 {
			v[i] = 0
		}
	}
	return v
}

// job makes a bound job: spec like "cpu=2,node=1".
func (f *fixture) job(id uint32, user, account, partition, qos, req string, minutes uint32) *Job {
	f.t.Helper()
	j := &Job{ID: id, User: user, Account: account, Partition: partition, QOS: qos, TimeLimit: minutes, MinNodes: 1}
	j.Req = f.req(req)
	if err := f.p.Bind(j); err != nil {
		f.t.Fatal(err)
	}
	return j
}

// submit validates and counts the job; it returns the refusal reason.
func (f *fixture) submit(j *Job) Reason {
	f.t.Helper()
	if err := f.p.Validate(j); err != nil {
		pe, ok := err.(*PolicyError)
		if !ok {
			f.t.Fatal(err)
		}
		return pe.Reason
	}
	f.p.Submit(j)
	return ReasonNone
}

// start runs the checks of a start at now on nodes and begins the job if
// they pass; it returns the reason it stays pending.
func (f *fixture) start(j *Job, nodes []uint32, now int64) Reason {
	f.t.Helper()
	if ok, r := f.p.PreSelect(j, now); !ok {
		return r
	}
	alloc := append(Vector(nil), j.Req...)
	if len(nodes) > 0 {
		alloc[TRESNode] = uint64(len(nodes))
	}
	if ok, r := f.p.PostSelect(j, alloc, nodes, now); !ok {
		return r
	}
	f.p.Begin(j, alloc, nodes, now)
	return ReasonNone
}
