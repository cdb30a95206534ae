package main

import "testing"

func TestDiffOutcomeWillRunStart(t *testing.T) {
	first := Outcome{OK: true, Nodes: "cn[1-4]", Processors: 144} // the first recordings: "start_now" only
	cases := []struct {
		name string
		old  Outcome
		cur  Outcome
		same bool
	}{
		{"old start_now, new asked and started the same second", first,
			Outcome{OK: true, Nodes: "cn[1-4]", Processors: 144, StartEpoch: 1795588173, AskedEpoch: 1795588173}, true},
		{"old start_now, new start without the time it was asked", first,
			Outcome{OK: true, Nodes: "cn[1-4]", Processors: 144, StartEpoch: 1795588173}, false},
		{"both asked, one starts later", Outcome{OK: true, Nodes: "n1", Processors: 8, StartEpoch: 100, AskedEpoch: 100},
			Outcome{OK: true, Nodes: "n1", Processors: 8, StartEpoch: 200, AskedEpoch: 100}, false},
		{"both asked, both start at once", Outcome{OK: true, Nodes: "n1", Processors: 8, StartEpoch: 101, AskedEpoch: 100},
			Outcome{OK: true, Nodes: "n1", Processors: 8, StartEpoch: 500, AskedEpoch: 499}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := diffOutcome(tc.old, tc.cur, 0, 0)
			if (d == "") != tc.same {
				t.Errorf("diffOutcome = %q, want same=%v", d, tc.same)
			}
		})
	}
}
