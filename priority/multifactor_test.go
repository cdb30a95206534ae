package priority

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nodesift/sift/limits"
)

// mfTree has two QOS (priorities 10 and 40), accounts with association
// priorities, and accrue limits: account lim has GrpJobsAccrue=1; QOS
// capped has MaxJobsAccruePerUser=2.
const mfTree = `QOS - 'normal':Priority=10
QOS - 'high':Priority=40
QOS - 'capped':MaxJobsAccruePerUser=2
Cluster - 'c':Fairshare=1:QOS='normal,high,capped':DefaultQOS='normal'
Parent - 'root'
Account - 'a':Fairshare=1:Priority=50
Account - 'lim':Fairshare=1:GrpJobsAccrue=1
Parent - 'a'
User - 'u':DefaultAccount='a':Fairshare=1
User - 'v':DefaultAccount='a':Fairshare=1:Priority=200
Parent - 'lim'
User - 'w':DefaultAccount='lim':Fairshare=1
`

const t0 = 1_700_000_000

func newMF(t *testing.T, mut func(c *Config)) *Multifactor {
	t.Helper()
	p := readTree(t, mfTree)
	cfg := DefaultConfig()
	cfg.MaxAge = 1000
	mut(&cfg)
	cpu, _ := p.TRES.Index("cpu")
	mem, _ := p.TRES.Index("mem")
	ptres := make(limits.Vector, p.TRES.Len())
	ptres[cpu], ptres[mem] = 100, 1000
	m, err := New(cfg, p, Cluster{CPUs: 100, Nodes: 10, Partitions: []Partition{
		{Name: "p1", JobFactor: 1, MaxTime: 600, TRES: ptres},
		{Name: "p2", JobFactor: 4, MaxTime: 600, TRES: ptres},
		{Name: "p0", JobFactor: 0, MaxTime: 600, TRES: ptres},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mfJob(m *Multifactor, t *testing.T, j Job) *Job {
	t.Helper()
	if j.User == "" {
		j.User, j.Account = "u", "a"
	}
	if j.Partitions == nil {
		j.Partitions = []string{"p1"}
	}
	if j.TimeLimit == 0 {
		j.TimeLimit = limits.NoVal
	}
	if j.TRES == nil {
		j.TRES = make(limits.Vector, m.Policy.TRES.Len())
	}
	if err := m.Bind(&j); err != nil {
		t.Fatal(err)
	}
	return &j
}

// One row per factor and flag: the weighted factor sprio prints.
func TestMultifactorFactors(t *testing.T) {
	cpu, mem := 0, 1
	tres := func(c, mm uint64) limits.Vector {
		v := make(limits.Vector, 8)
		v[cpu], v[mem] = c, mm
		return v
	}
	tests := []struct {
		name string
		cfg  func(c *Config)
		job  Job
		get  func(f *Factors) float64
		want float64
	}{
		{"age counts from accrue time", func(c *Config) { c.WeightAge = 1000 },
			Job{Accrue: t0 - 250}, func(f *Factors) float64 { return f.Age }, 250},
		{"age is capped at PriorityMaxAge", func(c *Config) { c.WeightAge = 1000 },
			Job{Accrue: t0 - 5000}, func(f *Factors) float64 { return f.Age }, 1000},
		{"no accrue time, no age", func(c *Config) { c.WeightAge = 1000 },
			Job{Submit: t0 - 500}, func(f *Factors) float64 { return f.Age }, 0},
		{"accrue in the future is age 0", func(c *Config) { c.WeightAge = 1000 },
			Job{Accrue: t0 + 10}, func(f *Factors) float64 { return f.Age }, 0},
		{"assoc priority normalised by the largest", func(c *Config) { c.WeightAssoc = 1000 },
			Job{}, func(f *Factors) float64 { return f.Assoc }, 250},
		{"assoc priority inherited by a user", func(c *Config) { c.WeightAssoc = 1000 },
			Job{User: "v", Account: "a"}, func(f *Factors) float64 { return f.Assoc }, 1000},
		{"NO_NORMAL_ASSOC uses the raw priority", func(c *Config) { c.WeightAssoc = 2; c.Flags |= NoNormalAssoc },
			Job{}, func(f *Factors) float64 { return f.Assoc }, 100},
		{"QOS normalised by the largest", func(c *Config) { c.WeightQOS = 1000 },
			Job{QOS: "normal"}, func(f *Factors) float64 { return f.QOS }, 250},
		{"default QOS", func(c *Config) { c.WeightQOS = 1000 },
			Job{}, func(f *Factors) float64 { return f.QOS }, 250},
		{"NO_NORMAL_QOS uses the raw priority", func(c *Config) { c.WeightQOS = 3; c.Flags |= NoNormalQOS },
			Job{QOS: "high"}, func(f *Factors) float64 { return f.QOS }, 120},
		{"partition factor normalised by the largest", func(c *Config) { c.WeightPartition = 1000 },
			Job{}, func(f *Factors) float64 { return f.PartitionF }, 250},
		{"NO_NORMAL_PART uses PriorityJobFactor", func(c *Config) { c.WeightPartition = 10; c.Flags |= NoNormalPart },
			Job{Partitions: []string{"p2"}}, func(f *Factors) float64 { return f.PartitionF }, 40},
		{"zero PriorityJobFactor", func(c *Config) { c.WeightPartition = 1000 },
			Job{Partitions: []string{"p0"}}, func(f *Factors) float64 { return f.PartitionF }, 0},
		{"job size favours large", func(c *Config) { c.WeightJobSize = 1000 },
			Job{MinNodes: 5, CPUs: 20}, func(f *Factors) float64 { return f.JobSize }, 350},
		{"job size without CPUs is the node fraction", func(c *Config) { c.WeightJobSize = 1000 },
			Job{MinNodes: 5}, func(f *Factors) float64 { return f.JobSize }, 500},
		{"PriorityFavorSmall", func(c *Config) { c.WeightJobSize = 1000; c.FavorSmall = true },
			Job{MinNodes: 5, CPUs: 20}, func(f *Factors) float64 { return f.JobSize }, 650},
		{"PriorityFavorSmall, job as large as the cluster", func(c *Config) { c.WeightJobSize = 1000; c.FavorSmall = true },
			Job{MinNodes: 10, CPUs: 100}, func(f *Factors) float64 { return f.JobSize }, 0},
		{"SMALL_RELATIVE_TO_TIME", func(c *Config) { c.WeightJobSize = 1000; c.Flags |= SmallRelativeToTime },
			Job{MinNodes: 1, CPUs: 50, TimeLimit: 10}, func(f *Factors) float64 { return f.JobSize }, 50},
		{"SMALL_RELATIVE_TO_TIME uses the node share when larger", func(c *Config) { c.WeightJobSize = 1000; c.Flags |= SmallRelativeToTime },
			Job{MinNodes: 4, CPUs: 1, TimeLimit: 4}, func(f *Factors) float64 { return f.JobSize }, 100},
		{"SMALL_RELATIVE_TO_TIME without a limit uses the partition's MaxTime", func(c *Config) {
			c.WeightJobSize = 1000
			c.Flags |= SmallRelativeToTime
			c.FavorSmall = true
		}, Job{MinNodes: 1, CPUs: 60}, func(f *Factors) float64 { return f.JobSize }, 999},
		{"TRES normalised by the partition's", func(c *Config) { c.WeightTRES = "CPU=1000,Mem=100" },
			Job{TRES: tres(25, 500)}, func(f *Factors) float64 { return f.TRES[cpu] + f.TRES[mem] }, 300},
		{"NO_NORMAL_TRES", func(c *Config) { c.WeightTRES = "CPU=2"; c.Flags |= NoNormalTRES },
			Job{TRES: tres(25, 500)}, func(f *Factors) float64 { return f.TRES[cpu] }, 50},
		{"site factor", func(c *Config) {}, Job{Site: 77}, func(f *Factors) float64 { return f.Sum() }, 77},
		{"nice lowers", func(c *Config) { c.WeightQOS = 1000 }, Job{Nice: 100}, func(f *Factors) float64 { return f.Sum() }, 150},
		{"priority is at least 1", func(c *Config) {}, Job{Nice: 100}, func(f *Factors) float64 { return f.Sum() }, 1},
		{"an administrator's priority replaces the factors", func(c *Config) { c.WeightQOS = 1000 },
			Job{Direct: 12345}, func(f *Factors) float64 { return f.Sum() + f.QOS }, 12345},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMF(t, tt.cfg)
			j := mfJob(m, t, tt.job)
			f := m.Factors(j, t0)[0]
			if got := tt.get(&f); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("got %v, want %v (%+v)", got, tt.want, f)
			}
		})
	}
}

func TestFairShareFactorIsWeighted(t *testing.T) {
	for _, flags := range []Flags{FairTree, 0, DepthOblivious} {
		m := newMF(t, func(c *Config) { c.WeightFairshare = 1000; c.Flags = flags })
		charge(m.Shares, m.Policy, "u", "a", 100)
		m.Shares.Root.UsageRaw = 400
		m.Shares.Compute()
		j := mfJob(m, t, Job{})
		f := m.Factors(j, t0)[0]
		n := m.Shares.Node(j.Assoc())
		if f.FairShare != n.FSFactor*1000 || n.FSFactor <= 0 || n.FSFactor > 1 {
			t.Errorf("flags %v: fair-share %v, node factor %v", flags, f.FairShare, n.FSFactor)
		}
	}
}

// A job in several partitions has a row for each, with that partition's
// factor; its priority is its first partition's.
func TestMultiPartitionRows(t *testing.T) {
	m := newMF(t, func(c *Config) { c.WeightPartition = 1000; c.WeightAge = 100 })
	j := mfJob(m, t, Job{Partitions: []string{"p2", "p1"}, Accrue: t0 - 500})
	rows := m.Factors(j, t0)
	if len(rows) != 2 || rows[0].Partition != "p2" || rows[0].PartitionF != 1000 || rows[1].PartitionF != 250 ||
		rows[0].Age != 50 || rows[1].Age != 50 {
		t.Fatalf("rows %+v", rows)
	}
	if p := m.Priority(j, t0); p != 1050 {
		t.Errorf("priority %d, want 1050", p)
	}
}

// Accrue: without limits a job accrues from when it became eligible; a
// held, dependent or not yet eligible job does not; under GrpJobsAccrue=1
// only the first accrues (from the pass), the next once it leaves;
// MaxJobsAccruePerUser=2 on a QOS lets two; ACCRUE_ALWAYS counts from
// submit; without enforced limits from eligibility.
func TestAccrue(t *testing.T) {
	m := newMF(t, func(c *Config) {})
	free := mfJob(m, t, Job{ID: 1, Submit: t0 - 100, Eligible: t0 - 90})
	held := mfJob(m, t, Job{ID: 2, Submit: t0 - 100, Eligible: t0 - 90, Held: true})
	dep := mfJob(m, t, Job{ID: 3, Submit: t0 - 100, Dependent: true})
	later := mfJob(m, t, Job{ID: 4, Submit: t0 - 100, Eligible: t0 + 50})
	l1 := mfJob(m, t, Job{ID: 5, User: "w", Account: "lim", Submit: t0 - 100, Eligible: t0 - 100})
	l2 := mfJob(m, t, Job{ID: 6, User: "w", Account: "lim", Submit: t0 - 100, Eligible: t0 - 100})
	q := []*Job{}
	for i := 0; i < 3; i++ {
		q = append(q, mfJob(m, t, Job{ID: uint32(7 + i), QOS: "capped", Submit: t0 - 100, Eligible: t0 - 100}))
	}
	all := append([]*Job{free, held, dep, later, l1, l2}, q...)
	m.Accrue.Update(all, t0)
	want := map[uint32]int64{1: t0 - 90, 2: 0, 3: 0, 4: 0, 5: t0, 6: 0, 7: t0, 8: t0, 9: 0}
	for _, j := range all {
		if j.Accrue != want[j.ID] {
			t.Errorf("job %d: accrue %d, want %d", j.ID, j.Accrue-t0, want[j.ID]-t0)
		}
	}
	if got := m.Accrue.Count(m.Policy.Account("lim")); got != 1 {
		t.Errorf("lim accrue count %d, want 1", got)
	}
	l1.Running = true
	m.Accrue.Update(all, t0+60)
	if l2.Accrue != t0+60 || l1.Accrue != t0 {
		t.Errorf("after job 5 started: job 6 accrue %d, job 5 %d", l2.Accrue-t0, l1.Accrue-t0)
	}

	m = newMF(t, func(c *Config) { c.Flags |= AccrueAlways })
	j := mfJob(m, t, Job{ID: 1, Submit: t0 - 100, Held: true})
	m.Accrue.Update([]*Job{j}, t0)
	if j.Accrue != t0-100 {
		t.Errorf("ACCRUE_ALWAYS: accrue %d, want submit", j.Accrue-t0)
	}
	m = newMF(t, func(c *Config) { c.EnforceLimits = false })
	a := mfJob(m, t, Job{ID: 5, User: "w", Account: "lim", Submit: t0 - 100, Eligible: t0 - 80})
	b := mfJob(m, t, Job{ID: 6, User: "w", Account: "lim", Submit: t0 - 100, Eligible: t0 - 80})
	m.Accrue.Update([]*Job{a, b}, t0)
	if a.Accrue != t0-80 || b.Accrue != t0-80 {
		t.Errorf("limits not enforced: accrue %d %d, want eligibility", a.Accrue-t0, b.Accrue-t0)
	}
}

// sprio lists pending jobs whose eligible time has come and are not held;
// running jobs only with CALCULATE_RUNNING; with ACCRUE_ALWAYS the submit
// time counts instead of eligibility.
func TestSprioRowsFollowSlurmsSelection(t *testing.T) {
	jobs := func(m *Multifactor) []*Job {
		return []*Job{
			mfJob(m, t, Job{ID: 1, Submit: t0 - 10, Eligible: t0 - 10}),
			mfJob(m, t, Job{ID: 2, Submit: t0 - 10, Eligible: t0 - 10, Running: true}),
			mfJob(m, t, Job{ID: 3, Submit: t0 - 10, Eligible: t0 - 10, Held: true}),
			mfJob(m, t, Job{ID: 4, Submit: t0 - 10}),
			mfJob(m, t, Job{ID: 5, Submit: t0 - 10, Eligible: t0 + 10}),
		}
	}
	ids := func(rows []Factors) []uint32 {
		var out []uint32
		for _, r := range rows {
			out = append(out, r.JobID)
		}
		return out
	}
	tests := []struct {
		flags Flags
		want  []uint32
	}{
		{FairTree, []uint32{1}},
		{FairTree | CalculateRunning, []uint32{1, 2}},
		{FairTree | AccrueAlways, []uint32{1, 4, 5}},
	}
	for _, tt := range tests {
		m := newMF(t, func(c *Config) { c.Flags = tt.flags })
		if got := ids(m.Sprio(jobs(m), t0)); !slices.Equal(got, tt.want) {
			t.Errorf("flags %v: rows for jobs %v, want %v", tt.flags, got, tt.want)
		}
	}
}

// A recalculation lowers a priority unless INCR_ONLY; held jobs, and
// running ones without CALCULATE_RUNNING, keep theirs.
func TestRecomputeIncrOnlyAndRunning(t *testing.T) {
	for _, tt := range []struct {
		flags Flags
		want  []uint32
	}{
		{FairTree, []uint32{1, 0, 500}},
		{FairTree | IncrOnly, []uint32{1, 0, 500}},
		{FairTree | CalculateRunning, []uint32{1, 0, 1}},
	} {
		m := newMF(t, func(c *Config) { c.Flags = tt.flags })
		js := []*Job{mfJob(m, t, Job{ID: 1}), mfJob(m, t, Job{ID: 2, Held: true}), mfJob(m, t, Job{ID: 3, Running: true})}
		prio := []uint32{1, 0, 500}
		m.Recompute(js, prio, t0)
		if !slices.Equal(prio, tt.want) {
			t.Errorf("flags %v: %v, want %v", tt.flags, prio, tt.want)
		}
		prio = []uint32{900, 0, 500}
		m.Recompute(js, prio, t0)
		if tt.flags&IncrOnly != 0 && prio[0] != 900 {
			t.Errorf("INCR_ONLY lowered 900 to %d", prio[0])
		}
		if tt.flags&IncrOnly == 0 && prio[0] != 1 {
			t.Errorf("flags %v: 900 recomputed to %d, want 1", tt.flags, prio[0])
		}
	}
}

// MAX_TRES bills the largest node-wide TRES (sets the policy's billing
// mode), which the usage charged follows.
func TestMaxTRESSetsBillingMode(t *testing.T) {
	m := newMF(t, func(c *Config) { c.Flags |= MaxTRES })
	if m.Policy.BillingMode != limits.BillMaxTRES {
		t.Errorf("billing mode %v", m.Policy.BillingMode)
	}
	m = newMF(t, func(c *Config) {})
	if m.Policy.BillingMode != limits.BillSum {
		t.Errorf("billing mode %v without MAX_TRES", m.Policy.BillingMode)
	}
}

// The fast path (Priority) against the plain reference (the first sprio
// row's Priority) over random jobs, weights and flags.
func TestPriorityMatchesItsFactors(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	flagSet := []Flags{FairTree, 0, DepthOblivious, FairTree | NoNormalAssoc | NoNormalPart | NoNormalQOS | NoNormalTRES,
		FairTree | SmallRelativeToTime}
	for k := 0; k < 200; k++ {
		flags := flagSet[k%len(flagSet)]
		m := newMF(t, func(c *Config) {
			c.Flags = flags
			c.WeightAge, c.WeightAssoc, c.WeightFairshare = rng.Uint32N(100000), rng.Uint32N(100000), rng.Uint32N(100000)
			c.WeightJobSize, c.WeightPartition, c.WeightQOS = rng.Uint32N(100000), rng.Uint32N(100000), rng.Uint32N(100000)
			c.WeightTRES = fmt.Sprintf("CPU=%d,Mem=%d", rng.IntN(5000), rng.IntN(5000))
			c.FavorSmall = rng.IntN(2) == 0
		})
		charge(m.Shares, m.Policy, "u", "a", float64(rng.IntN(1000)))
		charge(m.Shares, m.Policy, "w", "lim", float64(rng.IntN(1000)))
		m.Shares.Compute()
		users := [][2]string{{"u", "a"}, {"v", "a"}, {"w", "lim"}}
		parts := [][]string{{"p1"}, {"p2", "p1"}, {"p0"}}
		qos := []string{"", "normal", "high", "capped"}
		tres := make(limits.Vector, m.Policy.TRES.Len())
		tres[0], tres[1] = uint64(rng.IntN(100)), uint64(rng.IntN(1000))
		u := users[rng.IntN(3)]
		j := mfJob(m, t, Job{User: u[0], Account: u[1], Partitions: parts[rng.IntN(3)], QOS: qos[rng.IntN(4)],
			Accrue: t0 - int64(rng.IntN(2000)), MinNodes: uint32(rng.IntN(12)), CPUs: uint32(rng.IntN(120)),
			TimeLimit: uint32(1 + rng.IntN(100)), Nice: int32(rng.IntN(2000) - 1000), Site: int64(rng.IntN(100)), TRES: tres})
		if got, want := m.Priority(j, t0), m.Factors(j, t0)[0].Priority(); got != want {
			t.Fatalf("case %d: Priority %d, factors give %d", k, got, want)
		}
	}
}
