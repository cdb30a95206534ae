package vm

import "testing"

func TestTightWindowHoldsEveryMember(t *testing.T) {
	tests := []struct {
		name string
		w    []uint64
		want window
	}{
		{"no words", nil, window{0, 0}},
		{"all zero", []uint64{0, 0, 0}, window{0, 0}},
		{"one word in the middle", []uint64{0, 4, 0}, window{1, 2}},
		{"both ends", []uint64{1, 0, 1 << 63}, window{0, 3}},
		{"zero tail", []uint64{0, 1, 2, 0, 0}, window{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tight(tt.w, 0, len(tt.w)); got != tt.want {
				t.Errorf("tight = %v, want %v", got, tt.want)
			}
		})
	}
}
