package bench

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
)

// selectCase is a selection suite's setup: a plugin over the synthetic
// cluster with some nodes busy, and the pending request to place.
type selectCase struct {
	// newPlugin builds the plugin under test over a cluster.
	newPlugin func(*job.Cluster) job.Plugin
	// busyEvery makes every busyEvery-th usable node run a small job (1 for all).
	busyEvery int
	// small is the request of each busy node's job.
	small func(id uint32) *job.Request
	// pending is the request timed, for a cluster of n nodes.
	pending func(n int) *job.Request
	mode    job.Mode
}

func linearPlugin(cl *job.Cluster) job.Plugin {
	return linear.New(cl, linear.Config{TrackMemory: true})
}

func constresPlugin(cl *job.Cluster) job.Plugin {
	return constres.New(cl, constres.Config{TrackMemory: true, DefMemPerCPU: 1000})
}

// Selection suites: the budgets' shapes (DESIGN.md), scaled down when the
// cluster is too small for them.
var (
	// A 1,000-node job on select/linear, every 10th node busy.
	selectLinear = selectCase{newPlugin: linearPlugin, busyEvery: 10, mode: job.RunNow,
		small: func(id uint32) *job.Request { return &job.Request{ID: id, MinNodes: 1, MaxNodes: 1} },
		pending: func(n int) *job.Request {
			k := min(1000, n/10)
			return &job.Request{ID: 1 << 30, MinNodes: k, MaxNodes: k, ReqNodes: k}
		}}
	// A 64-node job on select/cons_tres, every 10th node running 8 tasks.
	selectConsTres = selectCase{newPlugin: constresPlugin, busyEvery: 10, mode: job.RunNow,
		small: func(id uint32) *job.Request { return &job.Request{ID: id, NTasks: 8, MinNodes: 1, MaxNodes: 1} },
		pending: func(n int) *job.Request {
			k := min(64, n/10)
			return &job.Request{ID: 1 << 30, MinNodes: k, MaxNodes: k, ReqNodes: k, NTasks: k * 16}
		}}
	// When could a 64-node job start on select/linear with a job running on
	// every node (10k running jobs at 10k nodes)?
	willRunLinear = selectCase{newPlugin: linearPlugin, busyEvery: 1, mode: job.WillRun,
		small: func(id uint32) *job.Request {
			return &job.Request{ID: id, MinNodes: 1, MaxNodes: 1, TimeLimit: 0}
		},
		pending: func(n int) *job.Request {
			k := min(64, n/10)
			return &job.Request{ID: 1 << 30, MinNodes: k, MaxNodes: k, ReqNodes: k}
		}}
)

func (sc selectCase) setup(n int) (*Case, error) {
	inv, err := loadInventory(Synthetic, n, false, false)
	if err != nil {
		return nil, err
	}
	cl := job.NewCluster(inv.snap)
	p := sc.newPlugin(cl)
	i := 0
	var beginErr error
	cl.Usable.Iterate(func(id uint32) bool {
		if i%sc.busyEvery == 0 {
			r := sc.small(id + 1)
			var a *job.Allocation
			if a, beginErr = p.Select(r, roaring.BitmapOf(id), job.RunNow, 0); beginErr == nil {
				a.Start = int64(i)
				beginErr = p.Begin(r, a)
			}
		}
		i++
		return beginErr == nil
	})
	if beginErr != nil {
		return nil, fmt.Errorf("busy nodes: %w", beginErr)
	}
	req := sc.pending(n)
	cand := inv.snap.Live()
	var got *job.Allocation
	var selErr error
	op := func() { got, selErr = p.Select(req, cand, sc.mode, 0) }
	return &Case{
		Op: op,
		Verify: func() error {
			op()
			if selErr != nil {
				return selErr
			}
			if c := int(got.Nodes.GetCardinality()); c != req.MinNodes {
				return fmt.Errorf("allocated %d nodes, want %d", c, req.MinNodes)
			}
			if !got.Nodes.Intersects(cl.Usable) || roaring.AndNot(got.Nodes, cl.Usable).GetCardinality() != 0 {
				return fmt.Errorf("allocated unusable nodes")
			}
			return nil
		},
	}, nil
}
