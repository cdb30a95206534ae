package limits

import (
	"math"
	"strings"
	"testing"
)

func TestTRESParseAndFormat(t *testing.T) {
	tl, err := NewTRESList("gres/gpu", "gres/gpu:tesla", "license/matlab", "bb/datawarp")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"cpu=8", "cpu=8"},
		{"cpu=8,mem=16G", "cpu=8,mem=16384"},
		{"mem=1T,node=2", "mem=1048576,node=2"},
		{"mem=512K", "mem=1"},
		{"1=4,4=2", "cpu=4,node=2"},
		{"gres/gpu=2,gres/gpu:tesla=1", "gres/gpu=2,gres/gpu:tesla=1"},
		{"GRES/GPU=2", "gres/gpu=2"},
		{"license/matlab=3,bb/datawarp=2G", "license/matlab=3,bb/datawarp=2048"},
		{"cpu=8,cpu=-1", ""},
		{"billing=10,energy=5,fs/disk=1,vmem=2,pages=3", "energy=5,billing=10,fs/disk=1,vmem=2,pages=3"},
		{"", ""},
	} {
		v, err := tl.Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := tl.Format(v); got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in  string
		off int
	}{
		{"cpu", 0}, {"cpu=8,gres/fpga=1", 6}, {"cpu=x", 4}, {"cpu=8,mem=1Q", 10}, {"cpu=18446744073709551615", 4},
	} {
		_, err := tl.Parse(c.in)
		te, ok := err.(*TRESError)
		if !ok || te.Offset != c.off {
			t.Errorf("Parse(%q): %v, want an error at %d", c.in, err, c.off)
		}
	}
	if _, err := NewTRESList("gpu"); err == nil {
		t.Error("a TRES without a type was accepted")
	}
}

// TestBilling is assoc_mgr_tres_weighted: the weighted sum, with MAX_TRES
// the largest node TRES plus the rest, with no weights the CPU count.
func TestBilling(t *testing.T) {
	tl, _ := NewTRESList("gres/gpu", "license/matlab")
	req, _ := tl.Parse("cpu=4,mem=8G,node=1,gres/gpu=2,license/matlab=1")
	bw, err := tl.ParseBillingWeights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/matlab=10")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode BillingMode
		want float64
	}{
		{BillSum, 4 + 2 + 4 + 10},
		{BillMaxTRES, 4 + 10},
		{BillMaxTRESGRES, 4 + 4 + 10},
	} {
		if got := bw.Billing(tl, req, c.mode); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("mode %d: %g, want %g", c.mode, got, c.want)
		}
	}
	var none *BillingWeights
	if got := none.Billing(tl, req, BillSum); got != 4 {
		t.Errorf("no weights: %g, want the CPU count 4", got)
	}
	if _, err := tl.ParseBillingWeights("CPU=x"); err == nil {
		t.Error("bad weight accepted")
	}
}

// TestReasonStrings: a few of Slurm's names, and the TRES class table of
// _get_tres_state_reason, including its gaps (no per-node reason for node
// or license TRES: the "Unknown" one is used).
func TestReasonStrings(t *testing.T) {
	tl, _ := NewTRESList("gres/gpu", "license/matlab", "bb/cray")
	for _, c := range []struct {
		r    Reason
		want string
	}{
		{tl.tresReason(TRESCPU, kindAssocGrp), "AssocGrpCpuLimit"},
		{tl.tresReason(TRESMem, kindQOSMaxPerUser), "QOSMaxMemoryPerUser"},
		{tl.tresReason(TRESNode, kindAssocMaxPerNode), "AssocMaxUnknownPerNode"},
		{tl.tresReason(8, kindQOSGrp), "QOSGrpGRES"},
		{tl.tresReason(9, kindQOSMaxPerNode), "QOSMaxUnknownPerNode"},
		{tl.tresReason(10, kindQOSMaxMinsPerJob), "AssocMaxBBMinutesPerJob"},
		{tl.tresReason(TRESVMem, kindAssocGrp), "AssocGrpUnknown"},
		{ReasonQOSMaxSubJob, "QOSMaxSubmitJobPerUserLimit"},
		{ReasonQOSMaxJobPerUser, "QOSMaxJobsPerUserLimit"},
		{ReasonAssocMaxWallPerJob, "AssocMaxWallDurationPerJobLimit"},
		{ReasonQOSMaxCPUPerAcct, "MaxCpuPerAccount"},
	} {
		if c.r.String() != c.want {
			t.Errorf("%d: %s, want %s", c.r, c.r, c.want)
		}
		// Slurm gives WAIT_QOS_MAX_BB_MINS_PER_JOB the association's string,
		// so that name maps back to the association reason.
		if r, ok := ReasonByName(c.want); !ok || r != c.r && c.want != "AssocMaxBBMinutesPerJob" {
			t.Errorf("ReasonByName(%s) = %d, %v", c.want, r, ok)
		}
	}
}

func TestTRESNamesIn(t *testing.T) {
	got := TRESNamesIn([]byte("QOS - 'g':GrpTRES=gres/gpu=4,GRES/gpu:a100=2:MaxTRESPerUser=license/matlab=1,bb/cray=1G\nUser - 'gres/x'\n"))
	want := "bb/cray gres/gpu gres/gpu:a100 license/matlab"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %q, want %q", s, want)
	}
}
