package inventory

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

func TestSyntheticIsDeterministic(t *testing.T) {
	a, b := Synthetic(500, 7), Synthetic(500, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different clusters")
	}
	if reflect.DeepEqual(a, Synthetic(500, 8)) {
		t.Error("different seeds gave the same cluster")
	}
	small, large := Synthetic(10, 1), Synthetic(1000, 1)
	for i := range small {
		if string(small[i].Extra) != string(large[i].Extra) || small[i].Name != large[i].Name {
			t.Errorf("node %d depends on the cluster size", i)
		}
	}
}

func TestSyntheticNamesHaveFixedWidth(t *testing.T) {
	tests := []struct {
		n           int
		first, last string
	}{
		{1, "node00001", "node00001"},
		{99999, "node00001", "node99999"},
		{100000, "node000001", "node100000"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			nodes := Synthetic(tt.n, 1)
			if len(nodes) != tt.n || nodes[0].Name != tt.first || nodes[tt.n-1].Name != tt.last {
				t.Errorf("got %d nodes %s..%s", len(nodes), nodes[0].Name, nodes[len(nodes)-1].Name)
			}
		})
	}
	if Synthetic(0, 1) != nil {
		t.Error("Synthetic(0) is not empty")
	}
}

// TestSyntheticDistributions checks the properties the README promises.
func TestSyntheticDistributions(t *testing.T) {
	const n = 20000
	nodes := Synthetic(n, 1)
	var p fastjson.Parser
	keys := map[string]int{}
	types := map[string]map[fastjson.Type]int{}
	noExtra, zedTeens, gpus, idle := 0, 0, 0, 0
	for i, nd := range nodes {
		if nd.Rank != uint32(i) || nd.CPUs != nd.Sockets*nd.CoresPerSocket*nd.ThreadsPerCore || nd.MemoryMB == 0 {
			t.Fatalf("node %s: inconsistent resources %+v", nd.Name, nd)
		}
		if nd.State == "idle" {
			idle++
		}
		if len(nd.Gres) > 0 {
			gpus++
		}
		if nd.Extra == nil {
			noExtra++
			continue
		}
		v, err := p.ParseBytes(nd.Extra)
		if err != nil {
			t.Fatalf("node %s: invalid extra %s: %v", nd.Name, nd.Extra, err)
		}
		o, _ := v.Object()
		o.Visit(func(k []byte, v *fastjson.Value) {
			keys[string(k)]++
			if types[string(k)] == nil {
				types[string(k)] = map[fastjson.Type]int{}
			}
			types[string(k)][v.Type()]++
		})
		if z := v.GetInt("zed"); z >= 10 && z < 20 {
			zedTeens++
		}
		if strings.Contains(string(nd.Extra), "gpu_mem_gb") != (len(nd.Gres) > 0) {
			t.Errorf("node %s: gpu_mem_gb without GPUs or GPUs without it", nd.Name)
		}
	}
	within := func(what string, got, lo, hi int) {
		if got < lo || got > hi {
			t.Errorf("%s: %d, want %d..%d", what, got, lo, hi)
		}
	}
	withExtra := n - noExtra
	within("nodes without extra", noExtra, 40, 170)
	within("zed in [10,20)", zedTeens, withExtra*10/64-400, withExtra*10/64+400)
	within("GPU nodes", gpus, n*15/100-600, n*15/100+600)
	within("idle nodes", idle, n*90/100-600, n*90/100+600)
	for _, k := range []string{"zed", "c", "arch", "os", "rack", "ib"} {
		within("nodes with "+k, keys[k], withExtra, withExtra)
	}
	for _, k := range []string{"a", "b", "foo", "gpu_mem_gb", "maint"} {
		within("nodes with "+k, keys[k], 1, withExtra-1)
	}
	if types["c"][fastjson.TypeString] == 0 || types["c"][fastjson.TypeNumber] == 0 {
		t.Errorf("c types %v: want both numbers and strings", types["c"])
	}
	if types["b"][fastjson.TypeTrue] == 0 || types["b"][fastjson.TypeFalse] == 0 || types["maint"][fastjson.TypeNull] == 0 {
		t.Errorf("b types %v, maint types %v", types["b"], types["maint"])
	}
}

func BenchmarkSynthetic(b *testing.B) {
	for _, n := range []int{1000, 100000, 1000000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Synthetic(n, 1)
			}
		})
	}
}
