package vm

import (
	"math/rand/v2"
	"testing"
)

var sinkX any

func BenchmarkResultX(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]uint64, 1563)
	for i := 0; i < 22918; i++ {
		id := r.IntN(100000)
		w[id>>6] |= 1 << (id & 63)
	}
	m := NewMachine()
	b.ReportAllocs()
	for b.Loop() {
		m.result(w)
	}
}

func BenchmarkMakeX(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buf := make([]byte, 16408)
		buf[0] = 1
		sinkX = buf
	}
}
