package hostlist

import "testing"

func TestNaturalCompareOrdersLikeStrnatcmp(t *testing.T) {
	sorted := []string{"a", "a010b", "a1", "a2", "a10", "b", "n01", "n1", "n9", "n10", "r1i0n2", "r1i0n10", "r1i1n0", "r2i0n0"}
	for i := 0; i < len(sorted); i++ {
		for j := 0; j < len(sorted); j++ {
			got := NaturalCompare(sorted[i], sorted[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if sign(got) != want {
				t.Errorf("NaturalCompare(%q, %q) = %d, want %d", sorted[i], sorted[j], got, want)
			}
		}
	}
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}
