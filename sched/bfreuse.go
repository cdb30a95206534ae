package sched

import (
	"math"
	"time"

	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// bfReuse is what a backfill pass leaves for the next ones to reuse
// (Options.ReusePasses): while nothing changes (clock.changes), the queue's
// records are the same and the clock stays before until, every decision
// of a pass at a later now is the one this pass made, so the pass stands
// for it: its planned starts are absolute times and stay on the jobs.
type bfReuse struct {
	ok      bool
	at      int64
	until   int64
	changes uint64
	recs    []record
	exit    string
	tested  int
	// reserved counts the pass's reservations; each one is a change of
	// the pass's own (last_job_update), which reuse repeats.
	reserved int
	// jobTests, used and yielded are the pass's bf_max_job_test count and
	// budget at its end, and submitted the queue's submission changes
	// then: a pass after submissions alone goes on from there
	// (continueBackfill).
	jobTests      int
	used, yielded time.Duration
	submitted     uint64
	// reused counts the passes the queue did not run again, continued
	// those it ran only for the records submitted since.
	reused, continued int
}

// reuseAllowed reports whether the queue's settings let a pass's decisions
// depend on now only through the comparisons BackfillPass bounds with
// until: no hook reads the clock, no advance reservation or preemption,
// bf_min_age_reserve off (it compares a job's age with now), the wall
// clock unused (bf_max_time then counts tests), and a select plugin whose
// will-run starts are absolute (job.AbsolutePlans).
func (q *Queue) reuseAllowed() bool {
	if !q.opt.ReusePasses || q.opt.Limits != nil || q.opt.Priority != nil || q.opt.WallClock != nil || q.opt.Yield != nil ||
		q.opt.Preempt.enabled() || q.traced != nil || len(q.resvs) > 0 || q.cfg.BFMinAgeReserve > 0 {
		return false
	}
	a, ok := q.plugin.(job.AbsolutePlans)
	return ok && a.AbsolutePlans()
}

// reuseBackfill stands the last pass in for a backfill pass at now when it
// may (bfReuse), and reports whether it did. The queue is built as the
// pass would build it (its reasons and eligibility are set the same way),
// and must give the last pass's records.
func (q *Queue) reuseBackfill(now int64, p *Pass) bool {
	r := &q.bfLast
	if !r.ok || now <= r.at || now >= r.until || q.clock.changes != r.changes || !q.reuseAllowed() {
		return false
	}

	recs := q.buildQueue(now, false, true)
	if len(recs) != len(r.recs) {
		r.ok = false
		return false
	}
	for i, rec := range recs {
		if rec != r.recs[i] {
			r.ok = false
			return false
		}
	}
	q.passNow = now
	r.reused++
	p.BackfillExit = r.exit
	p.BackfillTested += r.tested
	p.Reserved += r.reserved
	if r.reserved > 0 {
		q.clock.update = now
	}
	return true
}

// reuseTrack follows a backfill pass for bfReuse: until is lowered to the
// first later now at which one of the pass's comparisons with the clock
// could go the other way; nowDep marks a decision that depends on now
// itself (a job tested to start now).
type reuseTrack struct {
	on     bool
	until  int64
	nowDep bool
	// rec is the lowest time lowered to since the record the pass is at
	// began (walkState.own).
	rec int64
}

// startTrack begins following a pass at now over a map of resolution res
// and window seconds. Will-run answers are the ends of running jobs, the
// same until the first of them; with bf_running_job_reserve the running
// jobs are reserved from the map's begin, now rounded down to res. The
// pass itself lowers until where it compares with now (BackfillPass).
func (q *Queue) startTrack(now, window, res int64) reuseTrack {
	if !q.reuseAllowed() {
		return reuseTrack{}
	}
	t := reuseTrack{on: true, until: math.MaxInt64}
	if q.cfg.BFRunningJobReserve {
		// The running jobs are reserved from the map's first slot, which
		// begins at now rounded down to res.
		t.lower((now/res + 1) * res)
	}
	re := q.runningByEnd()
	if len(re) > 0 {
		if re[0].End <= now {
			// A job past its end: will-run answers move with now.
			return reuseTrack{}
		}
		t.lower(re[0].End)
	}
	return t
}

// answerBegin is the first begin after end of a slot that would change
// what a backfill round reads of usable's answer (avail, later) for a
// window ending there instead of at end, 0 if none. The slots beginning
// after end, as the window's end reaches them, narrow avail, which they do
// not if they hold all of it; a short round (too few nodes in avail, or
// not its required ones) stays short as avail narrows, and reads only
// later. later is the end of the first slot from the window's start after
// which a node frees, else the end of the one after the first slot past the
// window: it does not move when the first was found by then, or when no
// slot follows the first past the window.
func (ns *nodeSpace) answerBegin(avail bitset.Set, end, later int64, short bool) int64 {
	ns.ordered()
	k := ns.from(end)
	for k < len(ns.order) && ns.s[ns.order[k]].begin <= end {
		k++
	}
	if k == len(ns.order) {
		return 0
	}
	found := later != 0 && later <= ns.s[ns.order[k]].end
	lo, hi := avail.Span()
	for ; k < len(ns.order); k++ {
		s := &ns.s[ns.order[k]]
		if (!found && k+1 < len(ns.order)) || (!short && !avail[lo:hi].SubsetOf(s.avail[lo:hi])) {
			return s.begin
		}
	}
	return 0
}

// lower makes until at most t.
func (t *reuseTrack) lower(at int64) {
	if t.on {
		t.until = min(t.until, at)
		t.rec = min(t.rec, at)
	}
}

// finishTrack records the pass at now for reuse: tested and reserved are
// its counts, exit why it stopped, starts the jobs it started, jobTests
// and clock its bf_max_job_test count and budget.
func (q *Queue) finishTrack(t *reuseTrack, now int64, recs []record, exit string, tested, reserved, starts, jobTests int, clock *budget) {
	r := &q.bfLast
	r.ok = t.on && !t.nowDep && starts == 0 && t.until > now
	if !r.ok {
		return
	}
	r.at, r.until, r.changes, r.submitted = now, t.until, q.clock.changes, q.clock.submitted
	r.recs = append(r.recs[:0], recs...)
	r.exit, r.tested, r.reserved = exit, tested, reserved
	r.jobTests, r.used, r.yielded = jobTests, clock.used, clock.yielded
}

// continueBackfill prepares a backfill pass at now that goes on from the
// last one (bfReuse) when only submissions changed the queue since and
// their records come after all of the last pass's: a simulator's queue
// gets most of its jobs so, with FIFO priorities, and then the last pass
// stands for its records (as in reuseBackfill) and the map it left is
// the map a pass at now would have made of them, but for its first slot,
// which begins at now rounded down to res (no slot ends in between, as
// until is at most the end of the slot holding the last pass's now), and
// its last, which ends at now+window rounded down to res (no reservation
// ends in between: until is at most the time the window's end reaches one
// it cut). It returns the records and the first to test, with the last
// pass's counts added to p and the map made the one at now, and false
// (and nothing done) when the pass must be run in full. The bf_max_job_*
// caps and bf_job_part_count_reserve, which count per pass, are off.
func (q *Queue) continueBackfill(now, window, res int64, p *Pass) ([]record, int, bool) {
	r := &q.bfLast
	if !r.ok || now <= r.at || now >= r.until || !q.reuseAllowed() || r.exit != "end of queue" ||
		q.clock.changes-r.changes != q.clock.submitted-r.submitted || q.cfg.countsPerPass() {
		return nil, 0, false
	}
	// The last pass's plans stand: its jobs' planned starts are kept.
	recs := q.buildQueue(now, false, true)
	if len(recs) < len(r.recs) {
		return nil, 0, false
	}
	for i, rec := range r.recs {
		if recs[i] != rec {
			return nil, 0, false
		}
	}
	ns := q.bfSpace
	ns.ordered()
	ns.s[0].begin = now / res * res
	ns.s[ns.order[len(ns.order)-1]].end = (now + window) / res * res
	ns.changed(0)
	r.continued++
	p.BackfillTested += r.tested
	p.Reserved += r.reserved
	if r.reserved > 0 {
		q.clock.update = now
	}
	return recs, len(r.recs), true
}

// countsPerPass reports whether a bf_max_job_* cap or
// bf_job_part_count_reserve is set: they count within one pass, so a pass
// cannot take another's records over.
func (c Config) countsPerPass() bool {
	return c.BFMaxJobUserPart > 0 || c.BFMaxJobPart > 0 || c.BFMaxJobAssoc > 0 || c.BFMaxJobUser > 0 || c.BFJobPartCountReserve > 0
}

// walkLog is a full backfill pass's slot walks (nodeSpace.usable's
// answers) and reservations, up to its first start, for the next full
// passes to read instead of walking again (walkLogs.read). A round's walk
// reads the map as the earlier records' reservations left it, its
// candidates, its start and its window's end, and nothing else: a later
// full pass whose reservations up to a record are the logged ones (the
// same calls on a fresh map) has the same slots there but for the first
// one's begin (now rounded down to res) and the last one's end
// (now+window rounded down), so a round of that record with the same
// candidates, start and window gets the logged answer while no slot end
// lies between the two nows (bound: the end of the slot holding the
// logged now before the record, and the time the window's end reaches a
// logged reservation it cut) and, for a round from now, the window's end
// has not reached the first later slot that changes its answer
// (answerBegin). Will-run, the clock's comparisons and every decision are
// made again: only the walks are read, and a pass stops reading a
// record's walks at the first round that differs, and all of them at the
// first reservation that differs or at a start (which reserves the
// started job's nodes in the map). A record whose decisions must stand
// is not run at all (walkLogs.takeOver).
type walkLog struct {
	ok          bool
	res, window int64
	usable      bitset.Set
	recs        []record
	// first is each record's first round in rounds, adds the
	// reservations made before it, bound the now it stands before.
	first []int
	adds  []int
	bound []int64
	// rounds and their candidates and answers, two sets of words each
	// in words; resv the reservations, their nodes in resvWords.
	rounds    []walkRound
	words     []uint64
	resv      []walkResv
	resvWords []uint64
	// edge is the running bound of the reservations cut by the map's
	// end.
	edge int64
	// state is the pass's state before each record, for a later pass to
	// take records over (Queue.takeOver); at is the pass's now, changes,
	// submitted and ran the queue's change counts then, plain whether no
	// node was completing.
	state                   []walkState
	at                      int64
	changes, submitted, ran uint64
	plain                   bool
	// calls are the will-run questions and endsAt tests of the records
	// (the first of each in callFirst), their node sets in callWords.
	calls     []walkCall
	callWords []uint64
	callFirst []int
}

// walkCall is one will-run question of a record, with its answer, or
// (endsAt) one test whether a running job on the nodes ends at aStart.
// A question asked from start (from now, atNow) no further than later,
// on the nodes in the first words of its nw at w0, answered ok (no
// error) with aStart and the nodes in the next words.
type walkCall struct {
	endsAt, atNow, ok    bool
	start, later, aStart int64
	w0, nw               int
}

// walkState is a full pass's state before one of its records: the
// lowest time the record before lowered until to (own), the edge bound,
// the pass's counts and budget, and the planned start the record before
// left on its job.
type walkState struct {
	own, edge               int64
	tested, reserved, tests int
	used, yielded           time.Duration
	prevStart               int64
}

// same reports whether s and t hold the same counts, budget and planned
// start.
func (s walkState) same(t walkState) bool {
	s.own, s.edge, t.own, t.edge = 0, 0, 0, 0
	return s == t
}

// walkRound is one slot walk: from now (atNow, end then counted from
// now) or from start, to end; its answers later and count, and for a
// walk from now, the begin of the first later slot that changes its
// answer (0: none).
type walkRound struct {
	atNow            bool
	start, end       int64
	later, answerEnd int64
	count            int
}

// walkResv is one reservation of the map, from st to end.
type walkResv struct{ st, end int64 }

// walkLogs is the last full pass's log (old), read by the full pass
// running, which writes its own (cur).
type walkLogs struct {
	old, cur walkLog
	// readable says whether the pass running may read old, reading
	// whether it still reads the record it is at, writing whether it
	// writes cur, taking whether it may still take records over (its
	// state so far is the logged one); rec, round and resv are its
	// positions in old. last says that old was written by the last full
	// pass.
	readable, reading, writing, taking, last bool
	// verify says that the running jobs changed since old was written:
	// a record is taken over only when its will-run answers and endsAt
	// tests are still the logged ones.
	verify           bool
	rec, round, resv int
	resvSame         bool
	words            int
	// nRead and nWalked count the rounds read and walked, nTaken the
	// records taken over, nVerified those of them whose answers were
	// asked again (tests).
	nRead, nWalked, nTaken, nVerified int
}

// walkLogMaxWords is the widest map, in 64-node words, whose walks are
// logged: on CEA-Curie's 87 words the log's copies cost more than the
// walks it saves (the first 150,000 jobs took 1.031 of the CPU and 418
// against 280 MiB with it), on CTC-SP2's 6 it saves 5%.
const walkLogMaxWords = 32

// startWalks begins a full pass at now over a fresh map: it reads
// the last full pass's log when the map begins the same (the usable
// nodes, res and window), and writes its own when the pass is followed
// (track.on), no running job is in the map and the map is at most
// walkLogMaxWords words wide. dense says that will-run is asked through
// job.DenseWillRun.
func (q *Queue) startWalks(usable bitset.Set, now, window, res int64, tracked, dense bool) {
	w := &q.bfWalks
	w.words = len(usable)
	o := &w.old
	w.readable = o.ok && q.reuseAllowed() && !q.cfg.BFRunningJobReserve && o.res == res && o.window == window && o.usable.Equal(usable)
	w.reading = false
	w.rec, w.round, w.resv, w.resvSame = -1, 0, 0, true
	w.writing = tracked && !q.cfg.BFRunningJobReserve && len(usable) <= walkLogMaxWords
	c := &w.cur
	c.ok = false
	if w.writing {
		c.res, c.window, c.usable = res, window, append(c.usable[:0], usable...)
		c.recs, c.first, c.adds, c.bound = c.recs[:0], c.first[:0], c.adds[:0], c.bound[:0]
		c.rounds, c.words, c.resv, c.resvWords = c.rounds[:0], c.words[:0], c.resv[:0], c.resvWords[:0]
		c.edge = math.MaxInt64
		c.state = c.state[:0]
		c.calls, c.callWords, c.callFirst = c.calls[:0], c.callWords[:0], c.callFirst[:0]
		c.at, c.changes, c.submitted, c.ran = now, q.clock.changes, q.clock.submitted, q.clock.ran
		c.plain = len(q.completing) == 0
	}
	// The last full pass's records may stand (takeOver) when it wrote old
	// and nothing but submissions changed the queue since: the running
	// jobs are the same, so will-run gives the answers it gave (the plans
	// are absolute). When jobs also started or ended, a record stands if
	// its will-run answers and endsAt tests, asked again, are the logged
	// ones (verify: the dense will-run, no node completing). The
	// bf_max_job_* caps and bf_job_part_count_reserve, which count per
	// pass, are off.
	other := q.clock.changes - o.changes - (q.clock.submitted - o.submitted)
	w.taking = w.readable && w.writing && w.last && now > o.at && !q.cfg.countsPerPass() &&
		(other == 0 || (dense && o.plain && len(q.completing) == 0 && other == q.clock.ran-o.ran))
	w.verify = other != 0
	w.last = false
}

// idle is a pass that neither reads nor writes a log (a continued one).
func (w *walkLogs) idle() {
	w.readable, w.reading, w.writing, w.taking, w.resvSame = false, false, false, false, false
}

// record moves the pass to its i-th record r, at now on the map ns, with
// the pass's state st (but for edge) before it.
func (w *walkLogs) record(i int, r record, ns *nodeSpace, now int64, st walkState) {
	if w.writing {
		c := &w.cur
		c.recs = append(c.recs, r)
		c.first = append(c.first, len(c.rounds))
		c.adds = append(c.adds, len(c.resv))
		c.bound = append(c.bound, min(c.edge, ns.holdingEnd(now)))
		st.edge = c.edge
		c.state = append(c.state, st)
		c.callFirst = append(c.callFirst, len(c.calls))
	}
	if !w.readable {
		return
	}
	// The map is the logged one while every reservation so far was; a
	// record that differed before leaves the next ones readable.
	o := &w.old
	same := i < len(o.recs) && o.recs[i] == r && w.resvSame && w.resv == o.adds[i]
	w.reading = same && now < o.bound[i]
	if w.reading {
		w.rec, w.round = i, o.first[i]
	}
	if w.taking && (!same || i+1 >= len(o.recs) || !o.state[i].same(st)) {
		w.taking = false
	}
}

// takeOver takes the pass's i-th record r over from the log when the
// pass may (taking: its state before the record is the logged one) and
// the record's decisions stand: now is before the logged bound of its
// walks and before the lowest time it lowered until to, so each
// comparison it made with the clock goes the same way, and (verify) its
// will-run answers (dense) and endsAt tests are the logged ones. Its
// reservations are made again on ns (a map ending at windowEnd, window
// seconds at resolution res) and logged, its rounds and questions copied
// to the log; it returns the pass's state after the record, whose
// prevStart is its job's planned start. The record a logged pass ended at
// or started a job in is never taken over.
func (q *Queue) takeOver(i int, r record, dense job.DenseWillRun, ns *nodeSpace, now, windowEnd, window, res int64) (walkState, bool) {
	w := &q.bfWalks
	if !w.taking {
		return walkState{}, false
	}
	o, c := &w.old, &w.cur
	nx := o.state[i+1]
	if now >= nx.own || now >= o.bound[i] || (w.verify && !q.callsHold(i, r, dense, now)) {
		return walkState{}, false
	}
	n := w.words
	for k := o.adds[i]; k < o.adds[i+1]; k++ {
		nodes := bitset.Set(o.resvWords[k*n : (k+1)*n])
		ns.add(o.resv[k].st, o.resv[k].end, nodes)
		w.add(o.resv[k].st, o.resv[k].end, nodes, windowEnd, window, res)
	}
	a, b := o.first[i], o.first[i+1]
	c.rounds, c.words = append(c.rounds, o.rounds[a:b]...), append(c.words, o.words[2*a*n:2*b*n]...)
	for _, call := range o.calls[o.callFirst[i]:o.callFirst[i+1]] {
		words := o.callWords[call.w0 : call.w0+call.nw]
		call.w0 = len(c.callWords)
		c.calls, c.callWords = append(c.calls, call), append(c.callWords, words...)
	}
	w.nTaken++
	if w.verify {
		w.nVerified++
	}
	return nx, true
}

// callsHold reports whether the will-run questions and endsAt tests the
// log holds for the i-th record r get the logged answers at now.
func (q *Queue) callsHold(i int, r record, dense job.DenseWillRun, now int64) bool {
	o, n := &q.bfWalks.old, q.bfWalks.words
	req := r.e.part(r.part).req
	for _, c := range o.calls[o.callFirst[i]:o.callFirst[i+1]] {
		words := bitset.Set(o.callWords[c.w0 : c.w0+c.nw])
		if c.endsAt {
			if q.endsAt(words, c.aStart) != c.ok {
				return false
			}
			continue
		}
		start := c.start
		if c.atNow {
			start = now
		}
		aStart, chosen, err := dense.WillRunDense(q.planScratch(req, c.later), words[:n], start)
		if (err == nil) != c.ok || (c.ok && (aStart != c.aStart || !chosen.Equal(words[n:]))) {
			return false
		}
	}
	return true
}

// willRan logs a will-run question of the record the pass is at: from
// startRes at now, no further than later, on avail; its answer aStart on
// chosen, ok when it had no error.
func (w *walkLogs) willRan(startRes, now, later int64, avail bitset.Set, aStart int64, chosen bitset.Set, ok bool) {
	if !w.writing {
		return
	}
	c := &w.cur
	call := walkCall{atNow: startRes <= now, start: startRes, later: later, aStart: aStart, ok: ok, w0: len(c.callWords), nw: len(avail)}
	c.callWords = append(c.callWords, avail...)
	if ok {
		c.callWords = append(c.callWords, chosen...)
		call.nw += len(chosen)
	}
	c.calls = append(c.calls, call)
}

// endedAt logs the endsAt test of the record the pass is at, whether a
// running job on nodes ends at t, and returns its answer ended.
func (w *walkLogs) endedAt(nodes bitset.Set, t int64, ended bool) bool {
	if w.writing {
		c := &w.cur
		c.calls = append(c.calls, walkCall{endsAt: true, aStart: t, ok: ended, w0: len(c.callWords), nw: len(nodes)})
		c.callWords = append(c.callWords, nodes...)
	}
	return ended
}

// read is the logged answer of the pass's next slot walk (ns.usable of
// avail, orig, start, end at now) into avail, with the logged answerEnd,
// and whether there is one.
func (w *walkLogs) read(avail, orig bitset.Set, start, end, now int64) (later int64, count int, answerEnd int64, ok bool) {
	if !w.reading {
		return 0, 0, 0, false
	}
	o := &w.old
	last := len(o.rounds)
	if w.rec+1 < len(o.first) {
		last = o.first[w.rec+1]
	}
	k := w.round
	if k >= last {
		w.reading = false
		return 0, 0, 0, false
	}
	rd := &o.rounds[k]
	n := w.words
	if rd.atNow != (start <= now) || (rd.atNow && (start != now || end-now != rd.end || (rd.answerEnd > 0 && end >= rd.answerEnd))) ||
		(!rd.atNow && (start != rd.start || end != rd.end)) || !bitset.Set(o.words[2*k*n:(2*k+1)*n]).Equal(orig) {
		w.reading = false
		return 0, 0, 0, false
	}
	copy(avail, o.words[(2*k+1)*n:(2*k+2)*n])
	w.round++
	w.nRead++
	return rd.later, rd.count, rd.answerEnd, true
}

// wrote logs the pass's slot walk (as read takes it) with its answers.
func (w *walkLogs) wrote(avail, orig bitset.Set, start, end, now, later int64, count int, answerEnd int64, walked bool) {
	if walked {
		w.nWalked++
	}
	if !w.writing {
		return
	}
	c := &w.cur
	rd := walkRound{atNow: start <= now, start: start, end: end, later: later, count: count, answerEnd: answerEnd}
	if rd.atNow {
		rd.end -= now
	}
	c.rounds = append(c.rounds, rd)
	c.words = append(append(c.words, orig...), avail...)
}

// add logs the pass's reservation of nodes from st to end on a map
// ending at windowEnd (a window of window seconds at resolution res), and
// checks it against the logged one.
func (w *walkLogs) add(st, end int64, nodes bitset.Set, windowEnd, window, res int64) {
	if w.writing {
		c := &w.cur
		c.resv = append(c.resv, walkResv{st, end})
		c.resvWords = append(c.resvWords, nodes...)
		if end >= windowEnd {
			edge := end
			if st >= windowEnd {
				edge = st
			}
			c.edge = min(c.edge, edge+res-window)
		}
	}
	if !w.resvSame {
		return
	}
	o, n := &w.old, w.words
	k := w.resv
	if k >= len(o.resv) || o.resv[k] != (walkResv{st, end}) || !bitset.Set(o.resvWords[k*n:(k+1)*n]).Equal(nodes) {
		w.resvSame, w.reading = false, false
		return
	}
	w.resv++
}

// started stops the pass's reading and writing: a start reserves the
// started job's nodes in the map, which a fresh pass's map does not
// hold for a running job, and changes the running jobs.
func (w *walkLogs) started() {
	w.readable, w.reading, w.taking, w.resvSame = false, false, false, false
	if w.writing {
		w.writing = false
		w.cur.ok = true
	}
}

// finish ends the pass: the log it wrote becomes the one the next full
// pass reads.
func (w *walkLogs) finish() {
	if w.writing {
		w.writing = false
		w.cur.ok = true
	}
	w.readable, w.reading, w.taking = false, false, false
	if w.cur.ok {
		w.old, w.cur = w.cur, w.old
		w.cur.ok = false
		w.last = true
	}
}
