package ast

import (
	"fmt"
	"testing"

	"github.com/nodesift/sift/extra"
)

func BenchmarkSlurmNumber(b *testing.B) {
	for _, s := range []string{"23", "1.23001", "0x1.8p0", "5abc"} {
		b.Run("in="+s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = SlurmNumber(s)
			}
		})
	}
}

func BenchmarkSlurmBool(b *testing.B) {
	for _, s := range []string{"true", "0", "xyz"} {
		b.Run("in="+s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = SlurmBool(s)
			}
		})
	}
}

func BenchmarkParseExtra(b *testing.B) {
	raw := []byte(`{ "a": 1.23, "b": true, "c": 0, "foo": "bar", "zed": 23, "s": "x\u00e9y", "l": [1, {"k": null}] }`)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		_, _ = ParseExtra(raw)
	}
}

func BenchmarkEval(b *testing.B) {
	kv, _ := ParseExtra([]byte(`{ "a": 1.23, "b": true, "c": 0, "foo": "bar", "zed": 23 }`))
	f := &Facts{Name: "n1", HasExtra: true, Extra: kv}
	for _, leaves := range []int{3, 10} {
		var xs []Node
		for i := 0; i < leaves; i++ {
			xs = append(xs, &Compare{Key: []string{"a", "b", "foo", "zed"}[i%4], Op: extra.Ge, Value: fmt.Sprint(i)})
		}
		n := &Or{X: []Node{&And{X: xs}, &Compare{Key: "c", Op: extra.Eq, Value: "0"}}}
		b.Run(fmt.Sprintf("leaves=%d", leaves+1), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Eval(n, f)
			}
		})
	}
}
