package cputime

import (
	"runtime"
	"testing"
)

func TestThreadTimeGrowsWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := Thread()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
	x := 0
	for i := range 50_000_000 {
		x += i & 3
	}
	b, _ := Thread()
	if b <= a || x == 0 {
		t.Errorf("thread CPU time went from %v to %v over a busy loop", a, b)
	}
}
