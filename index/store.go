package index

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/valyala/fastjson"
)

// Fold thresholds: an update whose snapshot has foldAt changed nodes starts a
// background fold of them into fresh columns; a writer that finds hardCap
// changed nodes while a fold runs waits for it, so leaf cost stays bounded.
const (
	foldAt  = 64
	hardCap = 4096
)

// ErrUnknownNode is returned when an update names a node the store lacks.
var ErrUnknownNode = errors.New("index: unknown node")

// ErrDuplicateNode is returned when AddNode names a node that already exists.
var ErrDuplicateNode = errors.New("index: duplicate node")

// Store holds the current snapshot and serializes writers; readers take a
// snapshot and are never blocked.
type Store struct {
	mu     sync.Mutex // one writer at a time
	cur    atomic.Pointer[Snapshot]
	parser fastjson.Parser // guarded by mu
	// folding is closed when the running background fold has published;
	// nil when none runs. Guarded by mu.
	folding chan struct{}
}

// NewStore makes a store whose current snapshot is s.
func NewStore(s *Snapshot) *Store {
	st := &Store{}
	st.cur.Store(s)
	return st
}

// Snapshot returns the current snapshot.
func (st *Store) Snapshot() *Snapshot { return st.cur.Load() }

// SetExtra replaces the extra data of the node named name with raw (nil: no
// extra data).
func (st *Store) SetExtra(name string, raw []byte) (*Snapshot, error) {
	return st.update(name, func(old *Node) (*Node, error) {
		n := *old
		n.Extra = raw
		return &n, nil
	})
}

// SetFeatures replaces the features of the node named name.
func (st *Store) SetFeatures(name string, features []string) (*Snapshot, error) {
	return st.update(name, func(old *Node) (*Node, error) {
		n := *old
		n.Features = features
		return &n, nil
	})
}

// RemoveNode removes the node named name; its id becomes a hole.
func (st *Store) RemoveNode(name string) (*Snapshot, error) {
	return st.update(name, func(*Node) (*Node, error) { return nil, nil })
}

// AddNode adds n under the next id.
func (st *Store) AddNode(n Node) (*Snapshot, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.room()
	if _, ok := s.ID(n.Name); ok {
		return nil, fmt.Errorf("%w %q", ErrDuplicateNode, n.Name)
	}
	id := s.bound
	if id == ^uint32(0) {
		return nil, errors.New("index: node ids exhausted")
	}
	ns := st.next(s, st.entry(id, &n))
	ns.bound = id + 1
	names := make(map[string]uint32, len(s.names)+1)
	for k, v := range s.names {
		names[k] = v
	}
	names[n.Name] = id
	ns.names = names
	ns.live.Add(id)
	return st.publish(ns), nil
}

// update applies change to the node named name under the writer lock.
func (st *Store) update(name string, change func(*Node) (*Node, error)) (*Snapshot, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.room()
	id, ok := s.ID(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownNode, name)
	}
	old, _ := s.Node(id)
	n, err := change(old)
	if err != nil {
		return nil, err
	}
	ns := st.next(s, st.entry(id, n))
	if n == nil {
		ns.live.Remove(id)
		if _, added := s.names[name]; added {
			names := make(map[string]uint32, len(s.names))
			for k, v := range s.names {
				if k != name {
					names[k] = v
				}
			}
			ns.names = names
		}
	}
	return st.publish(ns), nil
}

func (st *Store) entry(id uint32, n *Node) *ovEntry {
	e := &ovEntry{id: id, n: n}
	if n != nil && n.Extra != nil {
		e.kv, e.has = parseExtra(&st.parser, n.Extra)
	}
	return e
}

// room returns the current snapshot after waiting, if the overlay is full,
// for the running fold to publish. Called with mu held.
func (st *Store) room() *Snapshot {
	for {
		s := st.cur.Load()
		if len(s.ov) < hardCap || st.folding == nil {
			return s
		}
		done := st.folding
		st.mu.Unlock()
		<-done
		st.mu.Lock()
	}
}

// next returns a copy of s, one generation later, with e in the overlay.
func (st *Store) next(s *Snapshot, e *ovEntry) *Snapshot {
	i := 0
	for i < len(s.ov) && s.ov[i].id < e.id {
		i++
	}
	replace := i < len(s.ov) && s.ov[i].id == e.id
	ov := make([]*ovEntry, 0, len(s.ov)+1)
	ov = append(ov, s.ov[:i]...)
	ov = append(ov, e)
	if replace {
		i++
	}
	ov = append(ov, s.ov[i:]...)
	return &Snapshot{gen: s.gen + 1, b: s.b, ov: ov, names: s.names, bound: s.bound, live: s.live.Clone()}
}

// publish makes ns current and starts a fold when its overlay has grown.
// Called with mu held.
func (st *Store) publish(ns *Snapshot) *Snapshot {
	st.cur.Store(ns)
	if len(ns.ov) >= foldAt && st.folding == nil {
		done := make(chan struct{})
		st.folding = done
		go func() {
			b := fold(ns)
			st.mu.Lock()
			st.cur.Store(rebase(st.cur.Load(), ns, b))
			st.folding = nil
			st.mu.Unlock()
			close(done)
		}()
	}
	return ns
}

// Compact waits for any running fold, then folds the remaining overlay into
// fresh columns and publishes the result (same generation, same contents).
func (st *Store) Compact() *Snapshot {
	st.mu.Lock()
	for st.folding != nil {
		done := st.folding
		st.mu.Unlock()
		<-done
		st.mu.Lock()
	}
	defer st.mu.Unlock()
	s := st.cur.Load()
	if len(s.ov) == 0 {
		return s
	}
	ns := rebase(s, s, fold(s))
	st.cur.Store(ns)
	return ns
}

// fold builds the columns of s with its overlay applied.
func fold(s *Snapshot) *base {
	b := s.b
	bb := newBaseBuilder(s.bound)
	changed := make([]uint64, (int(s.bound)+63)/64)
	for _, e := range s.ov {
		changed[e.id>>6] |= 1 << (e.id & 63)
	}
	isChanged := func(id uint32) bool { return changed[id>>6]&(1<<(id&63)) != 0 }
	for key, c := range b.cols {
		cb := bb.col([]byte(key))
		for id := range c.kind {
			if c.kind[id] != KindMissing && !isChanged(uint32(id)) {
				cb.addValue(uint32(id), c.value(uint32(id)))
			}
		}
	}
	for _, e := range s.ov {
		if e.n == nil {
			continue
		}
		for key, v := range e.kv {
			bb.col([]byte(key)).addValue(e.id, v)
		}
	}
	for id := uint32(0); id < s.bound; id++ {
		if n, ok := s.Node(id); ok {
			bb.addNode(id, n, s.HasExtra(id))
		}
	}
	return bb.finish()
}

// rebase returns cur with the columns b (built from the snapshot folded)
// and only the changes made after that snapshot in its overlay.
func rebase(cur, folded *Snapshot, b *base) *Snapshot {
	ns := &Snapshot{gen: cur.gen, b: b, bound: cur.bound, live: cur.live}
	for _, e := range cur.ov {
		if folded.entry(e.id) != e {
			ns.ov = append(ns.ov, e)
		}
	}
	for name, id := range cur.names {
		if id >= b.bound {
			if ns.names == nil {
				ns.names = map[string]uint32{}
			}
			ns.names[name] = id
		}
	}
	return ns
}
