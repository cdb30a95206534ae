package bfdriver

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/nodesift/sift/position"
)

func TestWriteThenReadGivesTheCasesBack(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var want []*Case
	for i := 0; i < 20; i++ {
		c := Generate(rng, "c")
		c.Out = []string{"1 R 0 60 node01", "2 P - -"}
		want = append(want, c)
	}
	var b strings.Builder
	Write(&b, want)
	got, err := Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the cases")
	}
}

func TestReadErrorsPointAtTheByte(t *testing.T) {
	for _, tc := range []struct {
		in  string
		off int
	}{
		{"j 0 1 1 1 0 1\n", 0},
		{"case a nodes=4\ncase b nodes=x\n", 22},
		{"case a color=red\n", 7},
		{"# c\ncase a\nq 1\n", 11},
		{"case\n", 0},
	} {
		_, err := Read(strings.NewReader(tc.in))
		off, ok := position.Of(err)
		if !ok || off != tc.off {
			t.Errorf("Read(%q) = %v at %d, want an error at byte %d", tc.in, err, off, tc.off)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add("case a nodes=4 now=1000000000 params=bf_resolution=60\nj 0 10 1 1 0 10\nr 1 R 0 600 node01\n")
	f.Add("# x\n\ncase b nodes=32\nj 0 5 32 32 0 10\nr 2 P 620 node[01-32]\n")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := Read(strings.NewReader(s))
		if err != nil {
			if off, ok := position.Of(err); !ok || off < 0 || off > len(s) {
				t.Fatalf("error %v has no offset inside the input", err)
			}
			return
		}
		var b strings.Builder
		Write(&b, cs)
		again, err := Read(strings.NewReader(b.String()))
		if err != nil || len(again) != len(cs) {
			t.Fatalf("written cases do not read back: %v", err)
		}
	})
}
