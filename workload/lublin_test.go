package workload

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSyntheticIsDeterministicForASeed(t *testing.T) {
	a := Synthetic(1, 500, Machine{MaxNodes: 128, MaxProcs: 128})
	b := Synthetic(1, 500, Machine{MaxNodes: 128, MaxProcs: 128})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different traces:\n%s", diff)
	}
	c := Synthetic(2, 500, Machine{MaxNodes: 128, MaxProcs: 128})
	if cmp.Equal(a.Jobs, c.Jobs) {
		t.Error("seeds 1 and 2 gave the same jobs")
	}
}

// TestSyntheticMatchesTheModel checks the generated sample against what
// the model's parameters imply, with wide margins: 20,000 jobs on the
// paper's 128-node machine.
func TestSyntheticMatchesTheModel(t *testing.T) {
	const n = 20000
	tr := Synthetic(7, n, Machine{})
	if tr.Machine != (Machine{MaxNodes: 128, MaxProcs: 128}) || len(tr.Jobs) != n {
		t.Fatalf("machine %+v, %d jobs", tr.Machine, len(tr.Jobs))
	}
	serial, pow2, batch := 0, 0, 0
	var logRun float64
	for i, j := range tr.Jobs {
		if j.Nodes < 1 || j.Nodes > 128 || j.Procs != j.Nodes || j.Run < 1 || j.Run > int64(math.Exp(12)) {
			t.Fatalf("job %+v outside the model", j)
		}
		if i > 0 && j.Submit < tr.Jobs[i-1].Submit {
			t.Fatalf("job %d submitted before job %d", j.ID, tr.Jobs[i-1].ID)
		}
		if j.TimeLimit < j.Run {
			t.Fatalf("job %+v: limit below run time", j)
		}
		switch {
		case j.Nodes == 1:
			serial++
		case bits.OnesCount(uint(j.Nodes)) == 1:
			pow2++
		}
		if j.QOS == "batch" {
			batch++
		}
		logRun += math.Log(float64(j.Run))
	}
	frac := func(k int) float64 { return float64(k) / n }
	// Serial: 0.15 to 0.29 by class; power-of-two parallel: 0.63 to 0.67
	// of the rest, plus non-rounded sizes that land on one.
	if f := frac(serial); f < 0.12 || f > 0.32 {
		t.Errorf("serial fraction %.3f", f)
	}
	if f := frac(pow2); f < 0.4 || f > 0.8 {
		t.Errorf("power-of-two parallel fraction %.3f", f)
	}
	if f := frac(batch); f < 0.05 || f > 0.5 { // batch jobs arrive about a quarter as often
		t.Errorf("batch fraction %.3f", f)
	}
	// ln(run): a mix of gamma means 6.57·0.823 ≈ 5.4 and 639.1·0.0156 ≈ 10
	// (batch), 3.8·0.66 ≈ 2.5 and 7.07·0.69 ≈ 4.8 (interactive).
	if m := logRun / n; m < 3 || m > 9 {
		t.Errorf("mean ln(run) %.2f", m)
	}
	days := float64(tr.Jobs[n-1].Submit) / 86400
	if perDay := n / days; perDay < 100 || perDay > 3000 {
		t.Errorf("%.0f jobs a day", perDay)
	}
}

func TestSyntheticScalesSizesToTheMachine(t *testing.T) {
	small := Synthetic(3, 5000, Machine{MaxNodes: 16, MaxProcs: 64})
	big := Synthetic(3, 5000, Machine{MaxNodes: 4096, MaxProcs: 4096 * 36})
	meanNodes := func(tr *Trace) float64 {
		s := 0
		for _, j := range tr.Jobs {
			if j.Nodes > tr.Machine.MaxNodes || j.Procs != j.Nodes*(tr.Machine.MaxProcs/tr.Machine.MaxNodes) {
				t.Fatalf("%s: job %+v", tr.Source, j)
			}
			s += j.Nodes
		}
		return float64(s) / float64(len(tr.Jobs))
	}
	if s, b := meanNodes(small), meanNodes(big); b < 20*s {
		t.Errorf("mean nodes %.1f on 16 nodes, %.1f on 4096: sizes do not scale", s, b)
	}
}

func TestGammaCDF(t *testing.T) {
	tests := []struct{ x, a, b, want float64 }{
		{1, 1, 1, 1 - math.Exp(-1)},
		{2, 2, 1, 1 - 3*math.Exp(-2)},
		{10, 2, 1, 1 - 11*math.Exp(-10)},
		{6, 2, 3, 1 - 3*math.Exp(-2)},
		{0, 3, 1, 0},
	}
	for _, tt := range tests {
		if got := gammaCDF(tt.x, tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("gammaCDF(%v, %v, %v) = %v, want %v", tt.x, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestGammaRandMeanAndVariance(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ a, b float64 }{{6.57, 0.823}, {0.6, 2}, {3.8351, 0.6605}, {639.1, 0.0156}} {
		const n = 20000
		var s, s2 float64
		for range n {
			g := gammaRand(r, tc.a, tc.b)
			s += g
			s2 += g * g
		}
		mean, vari := s/n, s2/n-(s/n)*(s/n)
		if wm, wv := tc.a*tc.b, tc.a*tc.b*tc.b; math.Abs(mean-wm) > 0.05*wm || math.Abs(vari-wv) > 0.1*wv {
			t.Errorf("gamma(%v, %v): mean %.4f var %.4f, want %.4f %.4f", tc.a, tc.b, mean, vari, wm, wv)
		}
	}
}

func TestDailyCycleWeightsAverageOne(t *testing.T) {
	for _, c := range []lublinClass{lublinBatch, lublinInteractive} {
		a := newArrivals(c)
		s, lo, hi := 0.0, math.Inf(1), 0.0
		for _, w := range a.weights {
			s += w
			lo, hi = min(lo, w), max(hi, w)
		}
		if math.Abs(s/lublinBuckets-1) > 1e-9 || hi < 2*lo {
			t.Errorf("weights mean %.6f, range %.3f..%.3f: no daily cycle", s/lublinBuckets, lo, hi)
		}
	}
}

func BenchmarkSynthetic(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run("jobs=10000", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Synthetic(1, n, Machine{})
			}
		})
	}
}
