package bench

import (
	"testing"
	"time"
)

func TestEverySuiteAgreesWithItsBaselines(t *testing.T) {
	for _, s := range Registry() {
		t.Run(s.Name, func(t *testing.T) {
			n := 2000
			if s.SizeFree {
				n = 0
			}
			c, err := s.Setup(n)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRunReportsEverySuiteAndSize(t *testing.T) {
	rep, err := Run(Select(Registry(), "hostlist"), Options{Sizes: []int{100, 1000}, Count: 2, MinSample: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("got %d results, want 2", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.MedianNS <= 0 || len(r.Samples) != 2 || r.Ratios["reference"] <= 0 || r.Ratios[machineBaseline] <= 0 {
			t.Errorf("incomplete result %+v", r)
		}
	}
}
