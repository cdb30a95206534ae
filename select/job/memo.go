package job

import (
	"math"

	"github.com/nodesift/sift/select/bitset"
)

// Shape is what a select plugin reads of a request to choose its nodes,
// but for the fields that name nodes or jobs (node lists, preemptees),
// which make a request's answer its own, and those no choice reads (id,
// priority, time limit, constraints: the caller's candidates carry them).
// TestShapeCoversTheRequest keeps it complete.
type Shape struct {
	MinNodes, MaxNodes, ReqNodes, NTasks, CPUsPerTask     int
	NTasksPerNode, NTasksPerCore, NTasksPerSocket         int
	SocketsPerNode, CoresPerSocket, ThreadsPerCore        int
	MinCPUsPerNode, MinCPUsTotal, GPUsPerNode, GPUsPerJob int
	PlaneSize                                             int
	PlanEnd                                               int64
	MemPerNode, MemPerCPU                                 uint64
	MemPerNodeSet, Contiguous, Exclusive, OverSubscribe   bool
	Preemptable, CoreDistSet                              bool
	Distribution                                          Distribution
	GPUType, Partition                                    string
}

// Shape returns r's shape, and false when r names nodes, preemptees or
// completing nodes, so
// that its shape does not say all a plugin reads of it.
func (r *Request) Shape() (Shape, bool) {
	if !r.Shaped() {
		return Shape{}, false
	}
	return Shape{MinNodes: r.MinNodes, MaxNodes: r.MaxNodes, ReqNodes: r.ReqNodes, NTasks: r.NTasks, CPUsPerTask: r.CPUsPerTask,
		NTasksPerNode: r.NTasksPerNode, NTasksPerCore: r.NTasksPerCore, NTasksPerSocket: r.NTasksPerSocket,
		SocketsPerNode: r.SocketsPerNode, CoresPerSocket: r.CoresPerSocket, ThreadsPerCore: r.ThreadsPerCore,
		MinCPUsPerNode: r.MinCPUsPerNode, MinCPUsTotal: r.MinCPUsTotal, GPUsPerNode: r.GPUsPerNode, GPUsPerJob: r.GPUsPerJob,
		PlaneSize: r.PlaneSize, PlanEnd: r.PlanEnd, MemPerNode: r.MemPerNode, MemPerCPU: r.MemPerCPU, MemPerNodeSet: r.MemPerNodeSet,
		Contiguous: r.Contiguous, Exclusive: r.Exclusive, OverSubscribe: r.OverSubscribe, Preemptable: r.Preemptable,
		CoreDistSet: r.CoreDistSet, Distribution: r.Distribution, GPUType: r.GPUType, Partition: r.Partition}, true
}

// Shaped reports whether r has a shape (Shape's second result).
func (r *Request) Shaped() bool {
	return (r.RequiredSet == nil || r.RequiredSet.IsEmpty()) && (r.ExcludedSet == nil || r.ExcludedSet.IsEmpty()) &&
		r.Required == "" && r.Excluded == "" && r.PreemptCandidates == nil && (r.Completing == nil || r.Completing.IsEmpty())
}

// of reports whether s is r's shape with PlanEnd planEnd, field by field:
// a memo's lookup reads the request in place instead of copying its
// shape out first (a fifth of a lookup's time).
func (s *Shape) of(r *Request, planEnd int64) bool {
	return s.MinNodes == r.MinNodes && s.MaxNodes == r.MaxNodes && s.ReqNodes == r.ReqNodes && s.NTasks == r.NTasks &&
		s.CPUsPerTask == r.CPUsPerTask && s.NTasksPerNode == r.NTasksPerNode && s.NTasksPerCore == r.NTasksPerCore &&
		s.NTasksPerSocket == r.NTasksPerSocket && s.SocketsPerNode == r.SocketsPerNode && s.CoresPerSocket == r.CoresPerSocket &&
		s.ThreadsPerCore == r.ThreadsPerCore && s.MinCPUsPerNode == r.MinCPUsPerNode && s.MinCPUsTotal == r.MinCPUsTotal &&
		s.GPUsPerNode == r.GPUsPerNode && s.GPUsPerJob == r.GPUsPerJob && s.PlaneSize == r.PlaneSize && s.PlanEnd == planEnd &&
		s.MemPerNode == r.MemPerNode && s.MemPerCPU == r.MemPerCPU && s.MemPerNodeSet == r.MemPerNodeSet &&
		s.Contiguous == r.Contiguous && s.Exclusive == r.Exclusive && s.OverSubscribe == r.OverSubscribe &&
		s.Preemptable == r.Preemptable && s.CoreDistSet == r.CoreDistSet && s.Distribution == r.Distribution &&
		s.GPUType == r.GPUType && s.Partition == r.Partition
}

// FitsNow is a remembered will-run answer's release end for a job that
// runs without waiting for any running job.
const FitsNow = math.MinInt64

// StartAt is the will-run start at now of a job that runs once the
// running job ending at end has ended (FitsNow: at once).
func StartAt(end, now int64) int64 {
	if end == FitsNow {
		return now
	}
	return max(end, now+1)
}

// Answer is a remembered will-run answer: the nodes, their CPUs, the end
// of the release that lets the job run (FitsNow if none), or the error.
type Answer struct {
	Nodes bitset.Set
	CPUs  int
	End   int64
	Err   error
	// Monotone says that a set of fitting candidates smaller than one
	// the job failed on fails too (the plugin's test depends on their
	// count alone), and Checked is the count of the plugin's changes
	// the answer is known to hold across: a plugin that keeps answers
	// across some changes of its running jobs reads both (linear).
	Monotone bool
	Checked  int
}

// Memo remembers a select plugin's will-run answers while its state (its
// running jobs) stays the same: a backfill pass asks the same shapes on
// the same candidates round after round, and pass after pass until a job
// starts or ends. Keys are a request's Shape, what the plugin derives
// from its configuration for it (extra), and the candidates.
type Memo struct {
	// slots is an open-addressed table of the entries (linear probing,
	// twice memoLimit slots; Go's map was a third of a lookup), each
	// slot with its entry's hash.
	slots []memoSlot
	// used holds the entries in slots; free those Reset dropped, whose
	// storage Put reuses.
	used, free []*memoEntry
}

type memoSlot struct {
	h uint64
	e *memoEntry
}

type memoEntry struct {
	shape Shape
	extra int
	cand  bitset.Set
	slot  int
	Answer
}

// memoLimit bounds the answers a memo keeps; memoBits is the log2 of its
// table's size. A smaller memo stays in the caches: since answers are
// kept across starts and ends, one of 4,096 answers cost more in cache
// misses than it saved in will-run tests (a whole CTC-SP2 replay: 0.958
// of the CPU with 1,024, for 3% more misses).
const (
	memoLimit = 1 << 10
	memoBits  = 11
)

// Get returns the answer remembered for the key, r's shape (r must have
// one: Shaped) with PlanEnd planEnd (0 for a plugin that reads none),
// extra and cand, if any, and the key's hash, which a Put of the same key
// is given (a miss then hashes the candidates once).
func (m *Memo) Get(r *Request, planEnd int64, extra int, cand bitset.Set) (*Answer, uint64, bool) {
	h := memoHash(r, extra, cand)
	if m.slots == nil {
		return nil, h, false
	}
	for i := h >> (64 - memoBits); ; i = (i + 1) & (1<<memoBits - 1) {
		sl := &m.slots[i]
		if sl.e == nil {
			return nil, h, false
		}
		if e := sl.e; sl.h == h && e.extra == extra && e.shape.of(r, planEnd) && e.cand.Equal(cand) {
			return &e.Answer, h, true
		}
	}
}

// Put remembers a under a key Get did not find, whose hash Get gave as h,
// copying its nodes and cand, and returns the copy.
func (m *Memo) Put(h uint64, r *Request, planEnd int64, extra int, cand bitset.Set, a Answer) *Answer {
	if m.slots == nil {
		m.slots = make([]memoSlot, 1<<memoBits)
	}
	if len(m.used) >= memoLimit {
		m.Reset()
	}
	s, _ := r.Shape()
	s.PlanEnd = planEnd
	var e *memoEntry
	if k := len(m.free); k > 0 {
		e, m.free = m.free[k-1], m.free[:k-1]
		nodes := e.Nodes
		*e = memoEntry{shape: s, extra: extra, cand: append(e.cand[:0], cand...), Answer: a}
		if a.Nodes != nil {
			e.Nodes = append(nodes[:0], a.Nodes...)
		}
	} else {
		e = &memoEntry{shape: s, extra: extra, cand: cand.Clone(), Answer: a}
		if a.Nodes != nil {
			e.Nodes = a.Nodes.Clone()
		}
	}
	i := h >> (64 - memoBits)
	for m.slots[i].e != nil {
		i = (i + 1) & (1<<memoBits - 1)
	}
	m.slots[i], e.slot = memoSlot{h: h, e: e}, int(i)
	m.used = append(m.used, e)
	return &e.Answer
}

// Replace makes the remembered answer at a (from Get or Put) b, copying
// its nodes into a's storage.
func (m *Memo) Replace(a *Answer, b Answer) {
	nodes := a.Nodes
	*a = b
	if b.Nodes != nil {
		a.Nodes = append(nodes[:0], b.Nodes...)
	}
}

// Reset forgets every answer; their storage serves the next ones, so an
// answer Get or Put returned before is no longer valid.
func (m *Memo) Reset() {
	for _, e := range m.used {
		m.slots[e.slot] = memoSlot{}
	}
	m.free = append(m.free, m.used...)
	clear(m.used)
	m.used = m.used[:0]
}

// memoHash mixes the candidates and the fields that tell a pass's
// requests apart; Get compares the whole key, so the rest can be left out
// of the hash (hashing every field cost more than the rest of a lookup).
// The fields seed four independent lanes, which take the candidates'
// words in turn and are mixed in pairs at the end, so that a thousand
// nodes are not one chain of multiplications, nor is the key (a chain of
// ten cost a tenth of a lookup).
func memoHash(r *Request, extra int, cand bitset.Set) uint64 {
	l0 := (uint64(r.MinNodes) | uint64(r.MaxNodes)<<32) * 0xff51afd7ed558ccd
	l1 := (uint64(r.NTasks) | uint64(r.CPUsPerTask)<<32) * 0xc4ceb9fe1a85ec53
	l2 := uint64(extra) * 0x9e3779b97f4a7c15
	l3 := (uint64(len(r.Partition)) | uint64(len(cand))<<32) * 0xd6e8feb86659fd93
	i := 0
	for ; i+4 <= len(cand); i += 4 {
		l0, l1, l2, l3 = mix(l0, cand[i]), mix(l1, cand[i+1]), mix(l2, cand[i+2]), mix(l3, cand[i+3])
	}
	switch len(cand) - i {
	case 3:
		l2 = mix(l2, cand[i+2])
		fallthrough
	case 2:
		l1 = mix(l1, cand[i+1])
		fallthrough
	case 1:
		l0 = mix(l0, cand[i])
	}
	return mix(mix(l0, l1), mix(l2, l3))
}

// mix adds v to the hash h.
func mix(h, v uint64) uint64 {
	h = (h^v)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	return h ^ h>>29
}
