package priority

import (
	"math"
	"testing"
	"time"

	"github.com/nodesift/sift/limits"
)

// A job running for three weeks, usage decaying with a one-week
// half-life and charged every five minutes: after every tick the raw
// usage equals the closed form of Slurm's discrete process (each period
// p adds p·d^p·billing, then everything decays by d^p, d = 1 - 0.693/hl),
// and stays within 0.5% of the continuous ∫ billing·2^(-(t-s)/hl) ds.
// After the job ends the usage halves every half-life (with d's error).
func TestDecayOverWeeksMatchesTheClosedForm(t *testing.T) {
	p := readTree(t, docTree)
	cfg := DefaultConfig()
	s := NewShares(p, cfg.Flags, 1)
	u := NewUsage(s, cfg)
	const start = 1_700_000_000
	const billing = 64.0
	per, hl := float64(cfg.CalcPeriod), float64(cfg.DecayHalfLife)
	d := 1 - 0.693/hl
	user := p.User("user1", "B", "")
	u.Begin(&RunningJob{ID: 1, Assoc: user, UsageFactor: 1, Start: start, TimeLimit: limits.Infinite, Billing: billing})
	u.Tick(start)
	n := s.Node(user)
	const weeks = 3
	ticks := int(weeks * 7 * 24 * 3600 / per)
	for k := 1; k <= ticks; k++ {
		u.Tick(start + int64(k)*int64(per))
		dp := math.Pow(d, per)
		closed := billing * per * dp * (1 - math.Pow(dp, float64(k))) / (1 - dp)
		if !near(n.UsageRaw, closed, 1e-9*closed) {
			t.Fatalf("tick %d: usage %v, closed form %v", k, n.UsageRaw, closed)
		}
		if k%288 == 0 { // daily
			tt := float64(k) * per
			cont := billing * hl / math.Ln2 * (1 - math.Exp2(-tt/hl))
			if !near(n.UsageRaw, cont, 0.005*cont) {
				t.Errorf("day %d: usage %v, continuous %v", k/288, n.UsageRaw, cont)
			}
		}
		if s.Root.UsageRaw != n.UsageRaw || s.Node(p.Account("A")).UsageRaw != n.UsageRaw {
			t.Fatalf("tick %d: usage not charged up to root", k)
		}
	}
	end := start + int64(ticks)*int64(per)
	u.End(1, end)
	before := n.UsageRaw
	week := int64(hl)
	u.Advance(end + week)
	want := before * math.Pow(d, hl)
	if !near(n.UsageRaw, want, 1e-9*want) || !near(n.UsageRaw/before, 0.5, 0.001) {
		t.Errorf("a half-life later: %v of %v (ratio %v), want %v", n.UsageRaw, before, n.UsageRaw/before, want)
	}
}

// A job that ends between two runs is charged up to its end, and its
// remaining run minutes come off; UsageFactor scales both.
func TestJobEndChargesUpToItsEnd(t *testing.T) {
	p := readTree(t, docTree)
	cfg := DefaultConfig()
	cfg.DecayHalfLife = 0
	s := NewShares(p, cfg.Flags, 1)
	u := NewUsage(s, cfg)
	user := p.User("user4", "E", "")
	alloc := make(limits.Vector, p.TRES.Len())
	alloc[limits.TRESCPU] = 8
	u.Begin(&RunningJob{ID: 7, Assoc: user, UsageFactor: 2, Start: 1000, TimeLimit: 60, Billing: 8, Alloc: alloc})
	n := s.Node(user)
	if got := n.RunSecs[limits.TRESCPU]; got != 8*3600*2 {
		t.Fatalf("run seconds at start %v, want %v", got, 8*3600*2)
	}
	u.Tick(1000)
	u.Tick(1300)
	if got := n.UsageRaw; got != 300*8*2 {
		t.Errorf("usage after 300 s: %v, want %v", got, 300*8*2)
	}
	if got := n.RunSecs[limits.TRESCPU]; got != 8*(3600-300)*2 {
		t.Errorf("run seconds after 300 s: %v, want %v", got, 8*(3600-300)*2)
	}
	u.End(7, 1450)
	if got := n.UsageRaw; got != 450*8*2 {
		t.Errorf("usage at end: %v, want %v", got, 450*8*2)
	}
	if got := n.RunSecs[limits.TRESCPU]; got != 0 {
		t.Errorf("run seconds after end: %v, want 0", got)
	}
	u.Tick(1600)
	if got := n.UsageRaw; got != 450*8*2 {
		t.Errorf("usage charged again after end: %v", got)
	}
}

func TestUsageResetPeriods(t *testing.T) {
	// 2026-11-25 (a Wednesday) 09:00 UTC.
	const wed = 1795597200
	tests := []struct {
		p    ResetPeriod
		want string
	}{
		{ResetDaily, "2026-11-26T00:00:00Z"},
		{ResetWeekly, "2026-11-29T00:00:00Z"},
		{ResetMonthly, "2026-12-01T00:00:00Z"},
		{ResetQuarterly, "2027-01-01T00:00:00Z"},
		{ResetYearly, "2027-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		got := nextReset(tt.p, wed, wed)
		if s := unixUTC(got); s != tt.want {
			t.Errorf("%v: next reset %s, want %s", tt.p, s, tt.want)
		}
	}
	p := readTree(t, docTree)
	cfg := DefaultConfig()
	cfg.UsageReset = ResetDaily
	s := NewShares(p, cfg.Flags, 1)
	u := NewUsage(s, cfg)
	u.Tick(wed)
	s.Root.UsageRaw = 1000
	u.Tick(wed + 3600)
	if s.Root.UsageRaw == 0 {
		t.Fatal("usage reset before midnight")
	}
	u.Tick(wed + 15*3600)
	if s.Root.UsageRaw != 0 {
		t.Errorf("usage %v after midnight, want reset", s.Root.UsageRaw)
	}
	cfg.UsageReset = ResetNow
	u = NewUsage(s, cfg)
	s.Root.UsageRaw = 5
	u.Tick(wed)
	s.Root.UsageRaw = 5
	u.Tick(wed + 300)
	if s.Root.UsageRaw == 0 {
		t.Error("NOW reset more than once")
	}
}

func unixUTC(t int64) string { return time.Unix(t, 0).UTC().Format(time.RFC3339) }
