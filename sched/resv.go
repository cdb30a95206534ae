package sched

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/position"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// ResvFlags are the Flags= of an advance reservation that sift models.
type ResvFlags uint8

// Reservation flags, under scontrol's names.
const (
	// ResvMaint is MAINT: a maintenance window. It may overlap other
	// reservations, and a job outside it whose partition lies wholly in
	// it waits with "ReqNodeNotAvail, Reserved for maintenance".
	ResvMaint ResvFlags = 1 << iota
	// ResvIgnoreJobs is IGNORE_JOBS: the reservation may be made on nodes
	// running jobs hold into its window.
	ResvIgnoreJobs
	// ResvFlex is FLEX: its jobs may start before it, outlast it and use
	// nodes outside it.
	ResvFlex
	// ResvAnyNodes is ANY_NODES: its jobs may use any nodes (a reservation
	// of licences or burst buffers, possibly of no nodes).
	ResvAnyNodes
)

var resvFlagNames = []struct {
	f    ResvFlags
	name string
}{{ResvMaint, "MAINT"}, {ResvIgnoreJobs, "IGNORE_JOBS"}, {ResvFlex, "FLEX"}, {ResvAnyNodes, "ANY_NODES"}}

// String is the flags as scontrol lists them, joined by commas.
func (f ResvFlags) String() string {
	var out []string
	for _, n := range resvFlagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, ",")
}

// ParseResvFlags reads a comma-separated Flags= value. SPEC_NODES, which
// scontrol shows for a reservation made with a node list, is accepted and
// means nothing more; other flags sift does not model are refused.
func ParseResvFlags(s string) (ResvFlags, error) {
	var f ResvFlags
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if w == "" || strings.EqualFold(w, "SPEC_NODES") {
			continue
		}
		i := slices.IndexFunc(resvFlagNames, func(n struct {
			f    ResvFlags
			name string
		}) bool {
			return strings.EqualFold(n.name, w)
		})
		if i < 0 {
			return 0, fmt.Errorf("reservation flag %q: expected MAINT, IGNORE_JOBS, FLEX or ANY_NODES", position.Clip(w))
		}
		f |= resvFlagNames[i].f
	}
	return f, nil
}

// Reservation is an advance reservation (scontrol create reservation):
// from Start to End its nodes are kept for the jobs that name it and that
// its users or accounts may run.
type Reservation struct {
	Name string
	// Nodes are the reserved nodes; when nil, AddReservation picks
	// NodeCount of them.
	Nodes     *roaring.Bitmap
	NodeCount int
	// Start and End are Unix seconds (End is Start plus the duration).
	Start, End int64
	// Users and Accounts may use it: a job's user must be listed when
	// Users is set, its account when Accounts is.
	Users, Accounts []string
	// Partition is where a node-count reservation picks its nodes, and
	// the partition of a job naming it that names none (empty: the
	// default partition).
	Partition string
	Flags     ResvFlags
}

// Errors of reservations, worded as scontrol and sbatch print Slurm's.
var (
	// ErrReservationInvalid is a job naming a reservation that does not
	// exist (ESLURM_RESERVATION_INVALID).
	ErrReservationInvalid error = slurmMessage("Requested reservation is invalid")
	// ErrReservationAccess is a job whose user and account may not use
	// the reservation it names (ESLURM_RESERVATION_ACCESS).
	ErrReservationAccess error = slurmMessage("Access denied to requested reservation")
	// ErrReservationOverlap is a reservation on nodes another reservation
	// holds at the same time (ESLURM_RESERVATION_OVERLAP).
	ErrReservationOverlap error = slurmMessage("Requested reservation overlaps with another reservation")
	// ErrReservationEmpty is a reservation naming no users or accounts.
	ErrReservationEmpty error = slurmMessage("Reservation request lacks users, groups or accounts")
	// ErrReservationDuplicate is a reservation name already taken.
	ErrReservationDuplicate error = slurmMessage("Duplicate reservation name")
	// ErrNodesBusy is a reservation on nodes running jobs hold into its
	// window without IGNORE_JOBS, or one that cannot find enough nodes.
	ErrNodesBusy error = slurmMessage("Requested nodes are busy")
	// ErrInvalidTime is a reservation ending before it starts.
	ErrInvalidTime error = slurmMessage("Invalid time specified")
)

// ReservationError says which reservation an error concerns.
type ReservationError struct {
	Name string
	Err  error
}

// Error names the reservation and the problem.
func (e *ReservationError) Error() string { return fmt.Sprintf("reservation %s: %v", e.Name, e.Err) }

// Unwrap returns the problem.
func (e *ReservationError) Unwrap() error { return e.Err }

// resvState is a reservation with what one main pass learns of it.
type resvState struct {
	r *Reservation
	// schedFailed is RESERVE_FLAG_SCHED_FAILED: a job in it could not
	// start for resources this pass, so lower ones in it wait.
	schedFailed bool
}

// overlaps reports whether the reservation's window meets [start, end).
func (r *Reservation) overlaps(start, end int64) bool {
	return r.Start < end && r.End > start
}

// Reservation returns the reservation called name.
func (q *Queue) Reservation(name string) (*Reservation, bool) {
	s := q.resv(name)
	if s == nil {
		return nil, false
	}
	return s.r, true
}

// Reservations lists the reservations in the order they were made.
func (q *Queue) Reservations() []*Reservation {
	out := make([]*Reservation, len(q.resvs))
	for i, s := range q.resvs {
		out[i] = s.r
	}
	return out
}

func (q *Queue) resv(name string) *resvState {
	for _, s := range q.resvs {
		if s.r.Name == name {
			return s
		}
	}
	return nil
}

// AddReservation makes reservation r at now, as create_resv does: it must
// name users or accounts, end after it starts, and (without MAINT) not
// overlap another reservation's nodes in time; without IGNORE_JOBS no
// running job may hold its nodes past its start. A reservation of
// NodeCount nodes gets the lowest-numbered usable nodes of its partition
// (else of every partition) that no other reservation (MAINT too) holds
// then and no running job holds from its start, idle ones first (the
// lowest with IGNORE_JOBS); only with IGNORE_JOBS may it take busy ones,
// and only with MAINT reserved ones.
func (q *Queue) AddReservation(r *Reservation, now int64) error {
	fail := func(err error) error { return &ReservationError{Name: r.Name, Err: err} }
	switch {
	case r.Name == "":
		return fail(ErrReservationInvalid)
	case q.resv(r.Name) != nil:
		return fail(ErrReservationDuplicate)
	case len(r.Users) == 0 && len(r.Accounts) == 0:
		return fail(ErrReservationEmpty)
	case r.End <= r.Start:
		return fail(ErrInvalidTime)
	}
	pool := q.cl.Usable.Clone()
	if r.Partition != "" {
		p := q.cl.Partitions[r.Partition]
		if p == nil {
			return fail(fmt.Errorf("unknown partition %q", r.Partition))
		}
		pool.And(p.Nodes)
	}
	// Nodes other reservations hold at the same time: an explicit node
	// list may not overlap those of reservations without MAINT
	// (_resv_overlap); a node count avoids them all (_filter_resv).
	busy, held := roaring.New(), roaring.New()
	for _, s := range q.resvs {
		o := s.r
		if o.Nodes == nil || !o.overlaps(r.Start, r.End) {
			continue
		}
		held.Or(o.Nodes)
		if o.Flags&ResvMaint == 0 {
			busy.Or(o.Nodes)
		}
	}
	// Nodes running jobs hold past the start (_job_overlap), from the
	// start on (_pick_node_cnt's filter), and now.
	jobs, fromStart, busyNow := roaring.New(), roaring.New(), roaring.New()
	for _, id := range q.ids {
		if j := q.jobs[id].j; j.State == Running && j.Nodes != nil {
			busyNow.Or(j.Nodes)
			if j.End >= r.Start {
				fromStart.Or(j.Nodes)
			}
			if j.End > r.Start {
				jobs.Or(j.Nodes)
			}
		}
	}
	if r.Nodes == nil || r.Nodes.IsEmpty() {
		if r.NodeCount <= 0 && r.Flags&ResvAnyNodes == 0 {
			return fail(fmt.Errorf("%w: no nodes or node count", ErrReservationInvalid))
		}
		// Nodes no running job holds from the start: with IGNORE_JOBS
		// the lowest of them, then busy ones; without, as will-run
		// picks them, idle ones first, then those whose jobs end
		// before the start. A MAINT reservation may take reserved
		// ones last.
		free := roaring.AndNot(pool, held)
		open := roaring.AndNot(free, fromStart)
		if r.Flags&ResvIgnoreJobs != 0 {
			r.Nodes = pickLowest(open, r.NodeCount)
			r.Nodes.Or(pickLowest(roaring.AndNot(free, r.Nodes), r.NodeCount-int(r.Nodes.GetCardinality())))
		} else if r.Nodes = q.resvWillRun(r, open, now); r.Nodes == nil {
			r.Nodes = pickLowest(roaring.AndNot(open, busyNow), r.NodeCount)
			r.Nodes.Or(pickLowest(roaring.AndNot(open, r.Nodes), r.NodeCount-int(r.Nodes.GetCardinality())))
		}
		if n := r.NodeCount - int(r.Nodes.GetCardinality()); n > 0 && r.Flags&ResvMaint != 0 {
			more := roaring.AndNot(pool, r.Nodes)
			if r.Flags&ResvIgnoreJobs == 0 {
				more.AndNot(jobs)
			}
			r.Nodes.Or(pickLowest(more, n))
		}
		if int(r.Nodes.GetCardinality()) < r.NodeCount {
			r.Nodes = nil
			return fail(ErrNodesBusy)
		}
	} else {
		if r.Flags&ResvMaint == 0 && r.Nodes.Intersects(busy) {
			return fail(ErrReservationOverlap)
		}
		if r.Flags&ResvIgnoreJobs == 0 && r.Nodes.Intersects(jobs) {
			return fail(ErrNodesBusy)
		}
	}
	r.NodeCount = int(r.Nodes.GetCardinality())
	q.resvs = append(q.resvs, &resvState{r: r})
	q.touch(now)
	return nil
}

// RemoveReservation deletes reservation name at now (delete_resv). A
// reservation a running job uses is refused; pending jobs naming it wait
// with reason Reservation from then on.
func (q *Queue) RemoveReservation(name string, now int64) error {
	i := slices.IndexFunc(q.resvs, func(s *resvState) bool { return s.r.Name == name })
	if i < 0 {
		return &ReservationError{Name: name, Err: ErrReservationInvalid}
	}
	for _, id := range q.ids {
		if j := q.jobs[id].j; j.Reservation == name && j.State == Running {
			return &ReservationError{Name: name, Err: ErrReservationBusy}
		}
	}
	q.resvs = slices.Delete(q.resvs, i, i+1)
	q.touch(now)
	return nil
}

// ErrReservationBusy refuses deleting a reservation a running job uses
// (ESLURM_RESERVATION_BUSY).
var ErrReservationBusy error = slurmMessage("Requested reservation is in use")

// resvAccess is _valid_job_access_resv without associations: the job's
// user must be among Users when they are set, and its account among
// Accounts when they are set (a user list alone suffices).
func resvAccess(r *Reservation, j *Job) bool {
	if len(r.Users) > 0 && !slices.Contains(r.Users, j.User) {
		return false
	}
	if len(r.Users) > 0 && len(r.Accounts) == 0 {
		return true
	}
	return len(r.Accounts) == 0 || slices.Contains(r.Accounts, j.Account)
}

// resvResult is job_test_resv's answer.
type resvResult uint8

const (
	resvOK resvResult = iota
	// resvLater: the job's reservation starts later (or has no nodes):
	// ESLURM_INVALID_TIME_VALUE.
	resvLater
	// resvInvalid: the reservation ended, or the job's node list lies
	// outside it (ESLURM_RESERVATION_INVALID).
	resvInvalid
	// resvMaint: a MAINT reservation covers the job's whole partition
	// in the window (ESLURM_RESERVATION_MAINT).
	resvMaint
	// resvBusy: the job's node list meets a reservation in the window
	// (ESLURM_NODES_BUSY).
	resvBusy
)

// resvTest is job_test_resv for e's job in part over [start, start+dur):
// the nodes the reservations leave it (nil: no restriction), whether a
// reservation overlapped its nodes (resv_overlap), and the answer. With
// move, a blocking reservation moves start to its end and the test is
// retried (up to 10 times, as Slurm); start is returned.
func (q *Queue) resvTest(e *entry, part string, start, dur int64, move bool) (allowed *roaring.Bitmap, overlap bool, rc resvResult, when int64) {
	j := e.j
	when = start
	if len(q.resvs) == 0 && j.Reservation == "" {
		// No reservation holds a node: backfill asks this of every job
		// it tests.
		return nil, false, resvOK, when
	}
	req := e.part(part).req.RequiredSet
	if j.Reservation != "" {
		s := q.resv(j.Reservation)
		if s == nil {
			return nil, false, resvInvalid, when
		}
		r := s.r
		if r.Flags&ResvFlex != 0 {
			allowed = q.cl.Usable.Clone()
		} else {
			switch {
			case when < r.Start:
				return nil, false, resvLater, r.Start
			case r.NodeCount == 0 && r.Flags&ResvAnyNodes == 0:
				return nil, false, resvLater, when + 600
			case when > r.End:
				return nil, false, resvInvalid, r.End
			}
			if req != nil && !req.IsEmpty() && r.Flags&ResvAnyNodes == 0 && !isSubset(req, r.Nodes) {
				return nil, false, resvInvalid, when
			}
			if r.Flags&ResvAnyNodes != 0 {
				allowed = q.cl.Usable.Clone()
			} else {
				allowed = r.Nodes.Clone()
			}
		}
		allowed.And(q.cl.Partitions[part].Nodes)
		if r.Flags&ResvMaint != 0 {
			return allowed, false, resvOK, when
		}
		for _, o := range q.resvs {
			if o == s || o.r.Nodes == nil || !o.r.overlaps(when, when+dur) {
				continue
			}
			if allowed.Intersects(o.r.Nodes) {
				overlap = true
				allowed.AndNot(o.r.Nodes)
			}
		}
		return allowed, overlap, resvOK, when
	}
	if len(q.resvs) == 0 {
		return nil, false, resvOK, when
	}
	partNodes := q.cl.Partitions[part].Nodes
	for try := 0; ; try++ {
		allowed, overlap, rc = q.cl.Usable.Clone(), false, resvOK
		for _, s := range q.resvs {
			r := s.r
			if !r.overlaps(when, when+dur) || r.Nodes == nil {
				continue
			}
			if r.Flags&ResvMaint != 0 && isSubset(partNodes, r.Nodes) {
				rc = resvMaint
			} else if req != nil && req.Intersects(r.Nodes) {
				rc = resvBusy
			}
			if rc != resvOK {
				if move {
					when = r.End
				}
				break
			}
			allowed.AndNot(r.Nodes)
			if partNodes.Intersects(r.Nodes) {
				overlap = true
			}
		}
		if rc == resvOK || !move || try >= 10 {
			break
		}
	}
	if rc != resvOK && move {
		return nil, overlap, rc, when
	}
	return allowed, overlap, rc, when
}

// resvEnd is find_resv_end: the earliest end of a reservation ending at or
// after t, rounded up to res; 0 for none.
func (q *Queue) resvEnd(t, res int64) int64 {
	var end int64
	for _, s := range q.resvs {
		if e := s.r.End; e >= t && (end == 0 || e < end) {
			end = e
		}
	}
	if end != 0 && res > 0 {
		end = (end + res - 1) / res * res
	}
	return end
}

// resvUsableNow is job_test_resv_now: a job naming a reservation may be
// scheduled only while it is active (a FLEX one at any time), has nodes
// (or ANY_NODES) and lets the job in.
func (q *Queue) resvUsableNow(j *Job, now int64) bool {
	if j.Reservation == "" {
		return true
	}
	s := q.resv(j.Reservation)
	if s == nil || !resvAccess(s.r, j) {
		return false
	}
	r := s.r
	if r.Flags&ResvFlex != 0 {
		return true
	}
	return now >= r.Start && now <= r.End && (r.NodeCount > 0 || r.Flags&ResvAnyNodes != 0)
}

// crossesResv reports whether job j, run on the chosen nodes from start
// for dur seconds, would use nodes another reservation holds then (a job
// of a MAINT reservation may). The job's own reservation may have ended:
// Slurm plans such a job all the same.
func (q *Queue) crossesResv(j *Job, chosen bitset.Set, start, dur int64) bool {
	if len(q.resvs) == 0 {
		return false
	}
	if own := q.resv(j.Reservation); own != nil && own.r.Flags&ResvMaint != 0 {
		return false
	}
	var nodes *roaring.Bitmap
	for _, s := range q.resvs {
		r := s.r
		if r.Name == j.Reservation || r.Nodes == nil || !r.overlaps(start, start+dur) {
			continue
		}
		if nodes == nil {
			nodes = chosen.Roaring()
		}
		if nodes.Intersects(r.Nodes) {
			return true
		}
	}
	return false
}

// selectFlex is select_nodes' run-now selection on use; a job of a FLEX
// reservation gets the reservation's nodes first (_build_node_list puts
// them in a node set of their own), the others only when it does not fit
// on those alone.
func (q *Queue) selectFlex(j *Job, req *job.Request, use *roaring.Bitmap, now int64) (*job.Allocation, error) {
	if s := q.resv(j.Reservation); s != nil && s.r.Flags&ResvFlex != 0 && s.r.Nodes != nil {
		if in := roaring.And(use, s.r.Nodes); !in.IsEmpty() && !in.Equals(use) {
			if a, err := q.plugin.Select(req, in, job.RunNow, now); err == nil {
				return a, nil
			}
		}
	}
	return q.plugin.Select(req, use, job.RunNow, now)
}

// fitsReservation is job_allocate's submit-time selection for a job
// naming a reservation that is active: false when in none of its
// partitions could the job ever run on the reservation's nodes (or its
// node list lies outside them), so that sbatch fails with
// ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE. A reservation that starts
// later, or that another reservation empties, leaves the job pending.
func (q *Queue) fitsReservation(e *entry, now int64) bool {
	j := e.j
	if j.Reservation == "" {
		return true
	}
	for _, p := range j.Partitions {
		pr := e.parts[p]
		if pr == nil || pr.err != nil {
			return true
		}
		allowed, overlap, rc, _ := q.resvTest(e, p, now, limitSeconds(pr.req.TimeLimit), false)
		req := pr.req.RequiredSet
		switch {
		case rc == resvLater:
			return true
		case rc != resvOK:
			continue
		case req != nil && !req.IsEmpty() && !isSubset(req, allowed):
			// "Required nodes outside of the reservation".
			continue
		case overlap && allowed.IsEmpty():
			return true
		}
		if _, err := q.plugin.Select(pr.req, roaring.And(pr.cands, allowed), job.TestOnly, now); err == nil || overlap {
			return true
		}
	}
	return false
}

// resvBoundary reports whether a reservation started or ended in
// (after, now].
func (q *Queue) resvBoundary(after, now int64) bool {
	for _, s := range q.resvs {
		if (s.r.Start > after && s.r.Start <= now) || (s.r.End > after && s.r.End <= now) {
			return true
		}
	}
	return false
}

// nextResvBoundary is the first reservation start or end after now, 0
// for none.
func (q *Queue) nextResvBoundary(now int64) int64 {
	var next int64
	for _, s := range q.resvs {
		for _, t := range []int64{s.r.Start, s.r.End} {
			if t > now && (next == 0 || t < next) {
				next = t
			}
		}
	}
	return next
}

// pickLowest is the n lowest-numbered nodes of from (fewer if it has
// fewer).
func pickLowest(from *roaring.Bitmap, n int) *roaring.Bitmap {
	out := roaring.New()
	it := from.Iterator()
	for ; n > 0 && it.HasNext(); n-- {
		out.Add(it.Next())
	}
	return out
}

// resvWillRun is _resv_select: the nodes of open the select plugin's
// will-run gives a whole-node job of the reservation's size and length
// that can start by its start, nil if none can.
func (q *Queue) resvWillRun(r *Reservation, open *roaring.Bitmap, now int64) *roaring.Bitmap {
	if int(open.GetCardinality()) < r.NodeCount {
		return nil
	}
	req := &job.Request{MinNodes: r.NodeCount, MaxNodes: r.NodeCount, Exclusive: true, Partition: r.Partition,
		TimeLimit: time.Duration(r.End-r.Start) * time.Second}
	a, err := q.plugin.Select(req, open.Clone(), job.WillRun, now)
	if err != nil || a.Start > max(r.Start, now) {
		return nil
	}
	return a.Nodes.Clone()
}
