package compiler

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodesift/sift/vm"
)

// countingCache returns a cache whose compiler counts its calls and builds
// a trivial program for any text except "bad".
func countingCache(size int) (*Cache, *atomic.Int64) {
	var calls atomic.Int64
	c := NewCache(size)
	c.compile = func(lang Lang, text string) (*vm.Program, error) {
		calls.Add(1)
		if text == "bad" {
			return nil, errors.New("bad text")
		}
		var b vm.Builder
		b.Const(true)
		return b.Program()
	}
	return c, &calls
}

func TestCacheCompilesEachTextOnce(t *testing.T) {
	c, calls := countingCache(8)
	p1, err := c.Compile(Slurm, "a=1")
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := c.Compile(Slurm, "a=1")
	if p1 != p2 || calls.Load() != 1 {
		t.Errorf("second compile of the same text: same program %v, %d compilations, want true and 1", p1 == p2, calls.Load())
	}
	if _, err := c.Compile(Requires, "a=1"); err != nil || calls.Load() != 2 {
		t.Errorf("the same text in another language must compile separately (%d compilations)", calls.Load())
	}
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	c, calls := countingCache(8)
	for range 2 {
		if _, err := c.Compile(Slurm, "bad"); err == nil {
			t.Fatal("want an error")
		}
	}
	if calls.Load() != 2 || c.Len() != 0 {
		t.Errorf("%d compilations and %d cached after two failures, want 2 and 0", calls.Load(), c.Len())
	}
}

func TestCacheStaysWithinSizeAndKeepsHotEntries(t *testing.T) {
	c, calls := countingCache(4)
	c.Compile(Slurm, "hot")
	for i := range 100 {
		c.Compile(Slurm, "cold"+strconv.Itoa(i))
		c.Compile(Slurm, "hot")
		if c.Len() > 4 {
			t.Fatalf("cache holds %d programs, size 4", c.Len())
		}
	}
	if calls.Load() != 101 {
		t.Errorf("%d compilations, want 101 (hot compiled once)", calls.Load())
	}
}

func TestCacheHitDoesNotAllocate(t *testing.T) {
	c, _ := countingCache(8)
	c.Compile(Flux, `{"properties":["x"]}`)
	if a := testing.AllocsPerRun(100, func() { c.Compile(Flux, `{"properties":["x"]}`) }); a != 0 {
		t.Errorf("cached compile allocates %v times, want 0", a)
	}
}

func TestCacheConcurrentCallers(t *testing.T) {
	c, _ := countingCache(16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				text := strconv.Itoa((i * (g + 1)) % 40)
				p, err := c.Compile(Slurm, text)
				if err != nil || p == nil {
					t.Errorf("Compile(%q) = %v, %v", text, p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if c.Len() > 16 {
		t.Errorf("cache holds %d programs, size 16", c.Len())
	}
}

func TestUnknownLanguage(t *testing.T) {
	if _, err := Compile("cobol", "a=1"); !errors.Is(err, ErrUnknownLang) {
		t.Errorf("Compile in an unknown language: %v, want ErrUnknownLang", err)
	}
}

func TestCacheSkipsHugeTexts(t *testing.T) {
	c, calls := countingCache(8)
	huge := strings.Repeat("x", MaxCachedText+1)
	for range 2 {
		if p, err := c.Compile(Slurm, huge); p == nil || err != nil {
			t.Fatalf("Compile of a huge text = %v, %v", p, err)
		}
	}
	if calls.Load() != 2 || c.Len() != 0 {
		t.Errorf("%d compilations and %d cached, want 2 and 0", calls.Load(), c.Len())
	}
}
