package bench

import "testing"

func TestSelectSuitesPlaceTheirJob(t *testing.T) {
	for _, s := range append(Select(Registry(), "select"), Select(Registry(), "will-run")...) {
		t.Run(s.Name, func(t *testing.T) {
			c, err := s.Setup(2000)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
