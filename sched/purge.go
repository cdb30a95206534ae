package sched

// PurgeFinished removes every finished job from the queue, as slurmctld
// purges a finished job record once MinJobAge has passed; a dependency on
// a purged job is lifted, as on any job slurmctld no longer knows. A long
// simulation purges ended jobs so that the passes do not walk them. It
// returns how many jobs it removed.
func (q *Queue) PurgeFinished() int {
	kept, keptEnts := q.ids[:0], q.ents[:0]
	for i, id := range q.ids {
		if q.ents[i].j.State.Finished() {
			delete(q.jobs, id)
			continue
		}
		kept, keptEnts = append(kept, id), append(keptEnts, q.ents[i])
	}
	n := len(q.ids) - len(kept)
	if n > 0 {
		// A dependency on a purged job is lifted.
		q.clock.changes++
	}
	clear(q.ids[len(kept):])
	clear(q.ents[len(keptEnts):])
	q.ids, q.ents = kept, keptEnts
	return n
}
