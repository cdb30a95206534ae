package jobtest

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// DenseAgrees drives a plugin over n nodes through steps steps: change
// starts or ends jobs at each (now grows by up to two minutes a step);
// then twelve questions ask WillRunDense about a random one of shapes on a
// random one of cands, at a random time from now-200 to now+spread, so
// that most questions repeat and remembered answers serve them. Each
// answer's start, nodes and failure must be those of want, the plugin's
// reference will-run answer, and the dense candidates must be left as
// they were.
func DenseAgrees(t testing.TB, seed uint64, r *rand.Rand, d job.DenseWillRun, n, steps int, change func(step uint32, now int64),
	shapes []*job.Request, cands []*roaring.Bitmap, spread int, want func(q *job.Request, cand *roaring.Bitmap, at int64) (*job.Allocation, error)) {
	t.Helper()
	now := int64(5000)
	for step := uint32(1); step <= uint32(steps); step++ {
		now += int64(r.IntN(120))
		change(step, now)
		for k := 0; k < 12; k++ {
			q := *shapes[r.IntN(len(shapes))]
			q.ID = 1000 + step
			cand := cands[r.IntN(len(cands))]
			at := now + int64(r.IntN(spread+200)) - 200
			dense := bitset.FromRoaring(cand, n)
			start, nodes, derr := d.WillRunDense(&q, dense, at)
			if !dense.Equal(bitset.FromRoaring(cand, n)) {
				t.Fatalf("seed %d step %d: WillRunDense changed its candidates (%+v)", seed, step, q)
			}
			w, werr := want(&q, cand, at)
			if (derr == nil) != (werr == nil) || (derr != nil && derr.Error() != werr.Error()) {
				t.Fatalf("seed %d step %d: errors differ: dense %v, reference %v (%+v)", seed, step, derr, werr, q)
			}
			if w != nil && (start != w.Start || !nodes.Equal(bitset.FromRoaring(w.Nodes, n))) {
				t.Fatalf("seed %d step %d at %d: dense answer %d %v, reference %d %v (%+v)", seed, step, at, start, nodes.IDs(nil), w.Start, w.Nodes.ToArray(), q)
			}
		}
	}
}

// Churn is one random change of p's jobs at now: half of the time the job
// newJob gives starts (when Select finds it nodes among its candidates),
// a quarter of the time a running job ends.
func Churn(t testing.TB, p job.Plugin, r *rand.Rand, now int64, newJob func() (*job.Request, *roaring.Bitmap)) {
	t.Helper()
	live := p.Jobs()
	if op := r.IntN(4); op < 2 {
		q, cand := newJob()
		if a, err := p.Select(q, cand, job.RunNow, now); err == nil {
			if err := p.Begin(q, a); err != nil {
				t.Fatalf("begin after a successful select: %v", err)
			}
		}
	} else if op == 2 && len(live) > 0 {
		_ = p.Fini(live[r.IntN(len(live))])
	}
}

// Candidates is k candidate sets: all of live, then random parts of it.
func Candidates(r *rand.Rand, live *roaring.Bitmap, k int) []*roaring.Bitmap {
	out := []*roaring.Bitmap{live.Clone()}
	for len(out) < k {
		c := live.Clone()
		it := live.Iterator()
		for it.HasNext() {
			if id := it.Next(); r.IntN(3) == 0 {
				c.Remove(id)
			}
		}
		out = append(out, c)
	}
	return out
}
