package sched

// PurgeFinished removes every finished job from the queue, as slurmctld
// purges a finished job record once MinJobAge has passed; a dependency on
// a purged job is lifted, as on any job slurmctld no longer knows. A long
// simulation purges ended jobs so that the passes do not walk them. It
// returns how many jobs it removed.
func (q *Queue) PurgeFinished() int {
	kept := q.ids[:0]
	for _, id := range q.ids {
		if q.jobs[id].j.State.Finished() {
			delete(q.jobs, id)
			continue
		}
		kept = append(kept, id)
	}
	n := len(q.ids) - len(kept)
	if n > 0 {
		// A dependency on a purged job is lifted.
		q.clock.changes++
	}
	clear(q.ids[len(kept):])
	q.ids = kept
	return n
}
