package slurm

import (
	"fmt"
	"strings"
	"testing"
)

// leafExpr returns an expression of n leaves in nested groups of three, like
// a realistic request.
func leafExpr(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte('&')
		}
		if i%3 == 0 && i+1 < n {
			fmt.Fprintf(&b, "(key%d>=%d|key%d=value%d)", i, i, i+1, i)
			i++
			continue
		}
		fmt.Fprintf(&b, "key%d<=%d.5", i, i)
	}
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1, 3, 10, 50} {
		text := leafExpr(n)
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("leaves=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_, _ = Parse(text)
			}
		})
	}
}

func BenchmarkParseError(b *testing.B) {
	text := leafExpr(10) + "|a=1"
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Parse(text)
	}
}

func BenchmarkFormat(b *testing.B) {
	n, err := Parse(leafExpr(10))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Format(n)
	}
}
