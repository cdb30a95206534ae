package compiler

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nodesift/sift/vm"
)

// Cache holds compiled programs by (language, text), at most a fixed
// number of them, evicting with the CLOCK algorithm (an approximation of
// least recently used that lets hits run under a shared lock). It is safe
// for concurrent use. Failed compilations are not cached, nor are texts
// longer than MaxCachedText, so that the memory the cache holds is bounded.
type Cache struct {
	mu      sync.RWMutex
	size    int
	entries map[cacheKey]*cacheEntry
	ring    []*cacheEntry
	hand    int
	compile func(Lang, string) (*vm.Program, error)
}

// MaxCachedText is the longest constraint text a Cache keeps.
const MaxCachedText = 16 << 10

type cacheKey struct {
	lang Lang
	text string
}

type cacheEntry struct {
	key  cacheKey
	prog *vm.Program
	used atomic.Bool
}

// NewCache returns a cache holding at most size programs (at least one).
func NewCache(size int) *Cache {
	size = max(size, 1)
	return &Cache{size: size, entries: make(map[cacheKey]*cacheEntry, size), compile: Compile}
}

// Compile returns the cached program for (lang, text), compiling and
// caching it on a miss.
func (c *Cache) Compile(lang Lang, text string) (*vm.Program, error) {
	c.mu.RLock()
	e, ok := c.entries[cacheKey{lang, text}]
	c.mu.RUnlock()
	if ok {
		if !e.used.Load() {
			e.used.Store(true)
		}
		return e.prog, nil
	}
	p, err := c.compile(lang, text)
	if err != nil || len(text) > MaxCachedText {
		return p, err
	}
	c.insert(cacheKey{lang, strings.Clone(text)}, p)
	return p, nil
}

// Len is the number of programs cached.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

func (c *Cache) insert(k cacheKey, p *vm.Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok {
		return
	}
	e := &cacheEntry{key: k, prog: p}
	if len(c.ring) < c.size {
		c.ring = append(c.ring, e)
		c.entries[k] = e
		return
	}
	// Sweep: give recently used entries a second chance, evict the first
	// one not used since the hand last passed it.
	for {
		victim := c.ring[c.hand]
		if victim.used.Swap(false) {
			c.hand = (c.hand + 1) % len(c.ring)
			continue
		}
		delete(c.entries, victim.key)
		c.ring[c.hand] = e
		c.entries[k] = e
		c.hand = (c.hand + 1) % len(c.ring)
		return
	}
}
