package inventory

import (
	"errors"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		spec string
		want Spec
		str  string
	}{
		{"", Spec{Synthetic: true, N: DefaultSyntheticNodes, Seed: DefaultSeed}, "synthetic:1000"},
		{"synthetic:10", Spec{Synthetic: true, N: 10, Seed: 1}, "synthetic:10"},
		{"synthetic:100000,seed=42", Spec{Synthetic: true, N: 100000, Seed: 42}, "synthetic:100000,seed=42"},
		{"nodes.json", Spec{Path: "nodes.json"}, "nodes.json"},
		{"./synthetic:10", Spec{Path: "./synthetic:10"}, "./synthetic:10"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseSpec(tt.spec)
			if err != nil || got != tt.want {
				t.Fatalf("ParseSpec(%q) = %+v, %v; want %+v", tt.spec, got, err, tt.want)
			}
			if got.String() != tt.str {
				t.Errorf("String() = %q, want %q", got.String(), tt.str)
			}
		})
	}
}

func TestParseSpecRejects(t *testing.T) {
	for _, spec := range []string{"synthetic:", "synthetic:0", "synthetic:-1", "synthetic:x",
		"synthetic:99999999999", "synthetic:10,seed=", "synthetic:10,seed=-1", "synthetic:10,sed=1", "synthetic:10,"} {
		t.Run(spec, func(t *testing.T) {
			_, err := ParseSpec(spec)
			var se *SpecError
			if !errors.As(err, &se) {
				t.Errorf("ParseSpec(%q) error = %v, want a *SpecError", spec, err)
			}
		})
	}
}

func TestSpecLoad(t *testing.T) {
	s, _ := ParseSpec("synthetic:3,seed=5")
	nodes, _, err := s.Load()
	if err != nil || len(nodes) != 3 {
		t.Fatalf("Load = %d nodes, %v", len(nodes), err)
	}
	s, _ = ParseSpec("testdata/example.json")
	if nodes, _, err = s.Load(); err != nil || len(nodes) != 4 {
		t.Fatalf("Load = %d nodes, %v", len(nodes), err)
	}
}
