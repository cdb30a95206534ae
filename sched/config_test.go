package sched

import (
	"errors"
	"testing"
	"time"
)

func TestParseSchedulerParameters(t *testing.T) {
	c, err := ParseSchedulerParameters(DefaultConfig(), "bf_interval=1, bf_window=2880,bf_resolution=300,bf_continue,bf_max_job_test=1000,default_queue_depth=50,bf_min_prio_reserve=7,kill_invalid_depend,bf_yield_interval=1000000,bf_yield_sleep=250000,bf_node_space_size=64")
	if err != nil {
		t.Fatal(err)
	}
	if c.BFInterval != time.Second || c.BFMaxTime != time.Second || c.BFWindow != 48*time.Hour || c.BFResolution != 5*time.Minute ||
		!c.BFContinue || c.BFMaxJobTest != 1000 || c.DefaultQueueDepth != 50 || c.BFMinPrioReserve != 7 ||
		c.BFYieldInterval != time.Second || c.BFYieldSleep != 250*time.Millisecond || c.BFNodeSpaceSize != 64 {
		t.Errorf("parsed %+v", c)
	}
	d := DefaultConfig()
	if d.BFInterval != 30*time.Second || d.BFResolution != time.Minute || d.BFWindow != 24*time.Hour || d.BFMaxJobTest != 500 ||
		d.BFMaxTime != 30*time.Second || d.DefaultQueueDepth != 100 || d.BFMaxJobArrayResv != 20 ||
		d.BFYieldInterval != 2*time.Second || d.BFYieldSleep != 500*time.Millisecond {
		t.Errorf("defaults %+v", d)
	}
	for _, bad := range []struct {
		text string
		off  int
	}{{"bf_resolution=0", 14}, {"bf_window=x", 10}, {"bf_interval=1,bf_max_job_test=-1", 30}} {
		_, err := ParseSchedulerParameters(DefaultConfig(), bad.text)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.ByteOffset() != bad.off {
			t.Errorf("%q: %v, want a ParamError at %d", bad.text, err, bad.off)
		}
	}
}

// TestBuiltinIntervalIsFirstIntervalKey: sched/builtin finds its period
// with xstrcasestr("interval="), so the first key ending in interval=
// sets it, bf_interval and sched_interval included.
func TestBuiltinIntervalIsFirstIntervalKey(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
	}{
		{"", 30 * time.Second},
		{"interval=5", 5 * time.Second},
		{"bf_interval=3,interval=5", 3 * time.Second},
		{"sched_interval=600,bf_interval=1", 600 * time.Second},
		{"batch_sched_delay=0,bf_interval=2", 2 * time.Second},
		{"interval=0", 30 * time.Second},
		{"Interval=7x", 7 * time.Second},
	} {
		c, err := ParseSchedulerParameters(DefaultConfig(), tc.text)
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if c.BuiltinInterval != tc.want {
			t.Errorf("%q: builtin interval %v, want %v", tc.text, c.BuiltinInterval, tc.want)
		}
	}
}
