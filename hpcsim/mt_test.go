package hpcsim

import "testing"

// The reference implementation's published check (mt19937ar.out, Matsumoto
// and Nishimura): init_by_array({0x123, 0x234, 0x345, 0x456}) starts with
// these outputs.
func TestMT19937MatchesTheReferenceOutput(t *testing.T) {
	var m mt19937
	m.initByArray([]uint32{0x123, 0x234, 0x345, 0x456})
	want := []uint32{1067595299, 955945823, 477289528, 4107218783, 4228976476, 3344332714, 3355579695, 227628506, 810200273, 2591290167}
	for i, w := range want {
		if got := m.uint32(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

func TestIntnStaysInRange(t *testing.T) {
	m := gymSeeded(1)
	for range 10000 {
		if v := m.intn(1024, 8975); v < 1024 || v >= 8975 {
			t.Fatalf("intn = %d", v)
		}
	}
	if v := m.intn(5, 6); v != 5 {
		t.Fatalf("intn(5, 6) = %d", v)
	}
}
