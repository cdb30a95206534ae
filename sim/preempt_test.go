package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/workload"
)

// TestSimulationPreemptsByQOS is preemption in a simulation: a job of QOS
// high preempts a running job of QOS low. Cancelled, the victim ends
// PREEMPTED; requeued, it runs again from the start after requeue_delay;
// suspended (GANG), it resumes with its remaining run time when the
// preemptor ends. A grace time lets the victim run on that long. The same
// run twice gives the same records.
func TestSimulationPreemptsByQOS(t *testing.T) {
	low := wj(1, 0, 4, 1000, 2000)
	low.QOS = "low"
	high := wj(2, 100, 2, 200, 300)
	high.QOS = "high"
	qos := map[string]sched.QOSPreempt{"high": {Priority: 10, Preempt: []string{"low"}}, "low": {}}
	for _, c := range []struct {
		name  string
		mode  sched.PreemptMode
		gang  bool
		grace time.Duration
		want  string
	}{
		// The backfill pass at the submission (bf_interval is over)
		// preempts; the victim's end runs a main pass at once, which
		// starts the preemptor in the same second.
		{"cancel", sched.PreemptCancel, false, 0, "1:PREEMPTED:3-100:0 2:COMPLETED:100-300:0"},
		// Requeued at 100, eligible at 221 (requeue_delay 120 s + 1),
		// started when the preemptor ends and run again in full.
		{"requeue", sched.PreemptRequeue, false, 0, "1:COMPLETED:300-1300:1 2:COMPLETED:100-300:0"},
		// Suspended at 100 with 903 s left; resumed at 300.
		{"suspend", sched.PreemptSuspend, true, 0, "1:COMPLETED:3-1203:0 2:COMPLETED:100-300:0"},
		// Signalled at 100, preempted at 130.
		{"grace", sched.PreemptCancel, false, 30 * time.Second, "1:PREEMPTED:3-130:0 2:COMPLETED:130-330:0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := qos
			if c.grace > 0 {
				q = map[string]sched.QOSPreempt{"high": qos["high"], "low": {GraceTime: c.grace}}
			}
			pc := sched.Preemption{Type: sched.PreemptQOS, Mode: c.mode, Flags: sched.PreemptModeFlags{Gang: c.gang}, QOS: q, KillWait: sched.DefaultKillWait}
			var got [2]string
			for k := range got {
				res := simulate(t, 4, Backfill, []workload.Job{low, high}, func(o *Options) { o.Preempt = pc })
				var out []string
				for _, j := range res.Jobs {
					out = append(out, fmt.Sprintf("%d:%s:%d-%d:%d", j.ID, j.State, j.Start, j.End, j.Requeues))
				}
				got[k] = strings.Join(out, " ")
			}
			if got[0] != c.want {
				t.Errorf("got  %s\nwant %s", got[0], c.want)
			}
			if got[0] != got[1] {
				t.Errorf("not deterministic:\n%s\n%s", got[0], got[1])
			}
		})
	}
}
