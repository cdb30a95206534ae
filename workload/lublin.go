package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The Lublin–Feitelson model: U. Lublin and D. G. Feitelson, "The workload
// on parallel supercomputers: modeling the characteristics of rigid jobs",
// Journal of Parallel and Distributed Computing 63(11):1105–1122, 2003.
// The parameters are the paper's (its Table 4 fits and the authors'
// published generator), for its two job classes, batch and interactive;
// the generator code itself is not used, only the model it describes.
//
// Each class has its own arrival stream; the next job is the class whose
// next arrival comes first.
//
//   - Size: a serial job (one node) with probability SerialProb; otherwise
//     log2(size) is drawn from a two-stage uniform distribution (uniform on
//     [ULow, UMed] with probability UProb, else on [UMed, UHi]) and rounded
//     to an integer (a power-of-two size) with probability Pow2Prob, and the
//     size is round(2^x).
//   - Run time: ln(run) is hyper-gamma, gamma(A1, B1) with probability
//     p = PA·size + PB (clamped to [0, 1]), else gamma(A2, B2) (B is the
//     scale), redrawn while above 12 (run ≤ e^12 s, about 45 hours). Bigger
//     jobs run longer because p falls with size.
//   - Arrivals: the inter-arrival gap at the rush hour has ln(gap) gamma
//     distributed (AArr·ARAR, BArr), redrawn while above 13; the gap is
//     stretched through the day by 48 half-hour buckets whose weights are
//     the gamma(ANum, BNum) probability of each bucket of a day that starts
//     at 11:00 (the daily cycle), normalised to mean 1. The trace starts at
//     midnight.
//
// The paper fits a 128-node machine (UHi = 7 for batch, 5.5 for
// interactive). Synthetic scales the sizes to the machine it is given, as
// the paper's UHi is "the log2 of the maximal size of a job in the system":
// UHi = log2(nodes) for batch and log2(nodes) − 1.5 for interactive, with
// UMed two and two and a half below it (the paper's UMed = 5 and 3), so
// the fraction of the machine a job asks for is the same on any machine.
type lublinClass struct {
	SerialProb, Pow2Prob, ULow, UMed, UHi, UProb float64
	A1, B1, A2, B2, PA, PB                       float64
	AArr, BArr, ANum, BNum, ARAR                 float64
}

// lublinBatch and lublinInteractive are the model's two classes (the
// generator's *_BATCH and *_ACTIVE constants, lublin99.c, 2001 version).
var (
	lublinBatch = lublinClass{
		SerialProb: 0.2927, Pow2Prob: 0.6686, ULow: 1.2, UMed: 5, UHi: 7, UProb: 0.875,
		A1: 6.57, B1: 0.823, A2: 639.1, B2: 0.0156, PA: -0.003, PB: 0.6986,
		AArr: 6.0415, BArr: 0.8531, ANum: 6.1271, BNum: 5.2740, ARAR: 1.0519,
	}
	lublinInteractive = lublinClass{
		SerialProb: 0.1541, Pow2Prob: 0.625, ULow: 1, UMed: 3, UHi: 5.5, UProb: 0.705,
		A1: 3.8351, B1: 0.6605, A2: 7.073, B2: 0.6856, PA: -0.0118, PB: 0.9156,
		AArr: 6.5510, BArr: 0.6621, ANum: 8.9186, BNum: 3.6680, ARAR: 0.9797,
	}
)

const (
	lublinMaxLogRun     = 12 // ln of the longest run time
	lublinMaxLogArrival = 13 // ln of the longest inter-arrival gap
	lublinBuckets       = 48 // half hours in a day
	lublinBucketSeconds = 86400 / lublinBuckets
	lublinDayStart      = 11 // the fitted day runs from bucket 11
)

// lublinLimits are the round time limits (seconds) Synthetic gives a job:
// the smallest one at least its run time. The model has no requested
// times; users pick round values (Tsafrir, Etsion and Feitelson, "Modeling
// user runtime estimates", JSSPP 2005), so these are minutes 5, 15, 30 and
// hours 1, 2, 4, 8, 12, 24, 36, 48.
var lublinLimits = []int64{300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 129600, 172800}

// Synthetic returns n jobs of the Lublin–Feitelson model for machine m
// (128 nodes of one processor when m is zero; MaxProcs/MaxNodes processors
// a node otherwise), the same trace for the same seed. Procs is the job's
// node count times the processors of a node; Nodes is its node count.
func Synthetic(seed uint64, n int, m Machine) *Trace {
	if m.MaxNodes <= 0 {
		m = Machine{MaxNodes: 128, MaxProcs: 128}
	}
	if m.MaxProcs < m.MaxNodes {
		m.MaxProcs = m.MaxNodes
	}
	perNode := m.MaxProcs / m.MaxNodes
	r := rand.New(rand.NewPCG(seed, 0x4c75626c696e3033)) // "Lublin03"
	shift := math.Log2(float64(m.MaxNodes)) - 7
	classes := [2]lublinClass{lublinInteractive, lublinBatch}
	var streams [2]*arrivals
	for i := range classes {
		classes[i].UHi += shift
		classes[i].UMed += shift
		classes[i].ULow = min(classes[i].ULow, classes[i].UMed)
		streams[i] = newArrivals(classes[i])
		streams[i].next(r)
	}
	tr := &Trace{
		Source:  fmt.Sprintf("synthetic:lublin-feitelson,seed=%d,jobs=%d,nodes=%d", seed, n, m.MaxNodes),
		Machine: m,
		Jobs:    make([]Job, 0, max(n, 0)),
	}
	for i := range n {
		c := 0 // interactive first on a tie, as the generator does
		if streams[1].at < streams[0].at {
			c = 1
		}
		submit := int64(streams[c].at)
		streams[c].next(r)
		nodes := min(classes[c].size(r), m.MaxNodes)
		run := classes[c].runTime(r, nodes)
		limit := lublinLimits[len(lublinLimits)-1]
		for _, l := range lublinLimits {
			if l >= run {
				limit = l
				break
			}
		}
		tr.Jobs = append(tr.Jobs, Job{
			ID: int64(i + 1), Submit: submit, Wait: Unknown, Run: run,
			Procs: nodes * perNode, AllocProcs: Unknown, Nodes: nodes,
			TimeLimit: limit, MemKB: Unknown, Status: StatusCompleted,
			QOS: [2]string{"interactive", "batch"}[c],
		})
	}
	return tr
}

// size draws a job's node count.
func (c *lublinClass) size(r *rand.Rand) int {
	u := r.Float64()
	if u <= c.SerialProb {
		return 1
	}
	x := twoStageUniform(r, c.ULow, c.UMed, c.UHi, c.UProb)
	if u <= c.SerialProb+c.Pow2Prob {
		x = math.Round(x)
	}
	return max(1, int(math.Round(math.Exp2(x))))
}

// runTime draws a job's run time in seconds for its size.
func (c *lublinClass) runTime(r *rand.Rand, nodes int) int64 {
	p := min(1, max(0, c.PA*float64(nodes)+c.PB))
	for {
		var hg float64
		if r.Float64() <= p {
			hg = gammaRand(r, c.A1, c.B1)
		} else {
			hg = gammaRand(r, c.A2, c.B2)
		}
		if hg <= lublinMaxLogRun {
			return int64(math.Exp(hg))
		}
	}
}

func twoStageUniform(r *rand.Rand, low, med, hi, prob float64) float64 {
	a, b := med, hi
	if r.Float64() <= prob {
		a, b = low, med
	}
	return a + r.Float64()*(b-a)
}

// arrivals is one class's arrival stream through the daily cycle.
type arrivals struct {
	c        lublinClass
	weights  [lublinBuckets]float64
	bucket   int
	points   float64
	reminder float64
	at       float64 // the next arrival, seconds from the start
}

func newArrivals(c lublinClass) *arrivals {
	a := &arrivals{c: c}
	mean := 0.0
	for i := lublinDayStart; i < lublinBuckets+lublinDayStart; i++ {
		w := gammaCDF(float64(i)+0.5, c.ANum, c.BNum) - gammaCDF(float64(i)-0.5, c.ANum, c.BNum)
		a.weights[(i-1)%lublinBuckets] = w
		mean += w
	}
	mean /= lublinBuckets
	for i := range a.weights {
		a.weights[i] /= mean
	}
	return a
}

// next moves the stream to its next arrival: a rush-hour gap, paid for in
// points bucket by bucket, so quiet hours stretch it.
func (a *arrivals) next(r *rand.Rand) {
	var g float64
	for {
		g = gammaRand(r, a.c.AArr*a.c.ARAR, a.c.BArr)
		if g <= lublinMaxLogArrival {
			break
		}
	}
	a.points += math.Exp(g) / lublinBucketSeconds
	gap := 0.0
	for a.points > a.weights[a.bucket] {
		a.points -= a.weights[a.bucket]
		a.bucket = (a.bucket + 1) % lublinBuckets
		gap += lublinBucketSeconds
	}
	rem := a.points / a.weights[a.bucket]
	gap += lublinBucketSeconds * (rem - a.reminder)
	a.reminder = rem
	a.at += gap
}

// gammaRand draws from gamma(alpha, beta) with beta the scale: a sum of
// int(alpha) exponentials plus a gamma(frac, beta) from a beta variate
// (Jain, The Art of Computer Systems Performance Analysis, 1991, ch. 28),
// as the model's authors drew it.
func gammaRand(r *rand.Rand, alpha, beta float64) float64 {
	whole := math.Floor(alpha)
	g := 0.0
	for i := 0.0; i < whole; i++ {
		g -= math.Log(1 - r.Float64())
	}
	g *= beta
	if frac := alpha - whole; frac > 0 {
		var x, y float64
		for {
			x = math.Pow(r.Float64(), 1/frac)
			y = math.Pow(r.Float64(), 1/(1-frac))
			if x+y <= 1 && x+y > 0 {
				break
			}
		}
		g += beta * (x / (x + y)) * -math.Log(1-r.Float64())
	}
	return g
}

// gammaCDF is the regularised lower incomplete gamma function at x/beta:
// the series below alpha+1, the continued fraction above (Numerical
// Recipes, ch. 6).
func gammaCDF(x, alpha, beta float64) float64 {
	x /= beta
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(alpha)
	if x < alpha+1 {
		sum, term, a := 1/alpha, 1/alpha, alpha
		for range 1000 {
			a++
			term *= x / a
			sum += term
			if term < sum*1e-12 {
				break
			}
		}
		return sum * math.Exp(-x+alpha*math.Log(x)-lg)
	}
	// Lentz's continued fraction for the upper tail.
	b := x + 1 - alpha
	c := 1 / 1e-300
	d := 1 / b
	h := d
	for i := 1; i <= 1000; i++ {
		an := -float64(i) * (float64(i) - alpha)
		b += 2
		d = an*d + b
		if math.Abs(d) < 1e-300 {
			d = 1e-300
		}
		c = b + an/c
		if math.Abs(c) < 1e-300 {
			c = 1e-300
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-12 {
			break
		}
	}
	return 1 - math.Exp(-x+alpha*math.Log(x)-lg)*h
}
