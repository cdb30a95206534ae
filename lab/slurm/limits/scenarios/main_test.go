package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/select/job"
)

// TestGenerateIsSeededAndParses: the same seed writes the same world, and
// every world's sacctmgr block and job specs read back with sift's own
// readers (the replay reads them so).
func TestGenerateIsSeededAndParses(t *testing.T) {
	for w := 1; w <= 20; w++ {
		a, b := generate(1, w, 15, 37001), generate(1, w, 15, 37001)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("world %d: two runs with seed 1 differ", w)
		}
		if _, err := limits.ParseSacctmgrCommands([]byte(a.Sacctmgr), "lab", map[string]string{"@USER@": "labuser"}); err != nil {
			t.Fatalf("world %d: %v\n%s", w, err, a.Sacctmgr)
		}
		if !strings.Contains(a.SlurmConf, "Port=37001") {
			t.Fatalf("world %d: nodes do not start at the given port", w)
		}
		if len(a.Cases) != 15 {
			t.Fatalf("world %d: %d cases, want 15", w, len(a.Cases))
		}
		for _, c := range a.Cases {
			for _, s := range c.Jobs {
				if s.Action != "" {
					continue
				}
				var rest []string
				for _, item := range strings.Split(s.Spec, ",") {
					k, _, _ := strings.Cut(item, "=")
					if k != "account" && k != "qos" && k != "partition" {
						rest = append(rest, item)
					}
				}
				if _, err := job.ParseSpec(strings.Join(rest, ",")); err != nil {
					t.Fatalf("world %d case %q: %v", w, c.Name, err)
				}
			}
		}
	}
}
