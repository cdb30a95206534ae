package index

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nodesift/sift/extra"
)

// Fold thresholds: an update whose snapshot has foldAt changed nodes starts a
// background fold of them into fresh columns; a writer that finds hardCap
// changed nodes while a fold runs waits for it, so leaf cost stays bounded.
const (
	foldAt  = 128
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
	parser extraReader // guarded by mu
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
	ns.live = s.live.Clone()
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
		ns.live = s.live.Clone()
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
		if s.ov.size() < hardCap || st.folding == nil {
			return s
		}
		done := st.folding
		st.mu.Unlock()
		<-done
		st.mu.Lock()
	}
}

// next returns a copy of s, one generation later, with e in the overlay. It
// shares s's live bitmap: a caller that changes it must clone it first.
func (st *Store) next(s *Snapshot, e *ovEntry) *Snapshot {
	return &Snapshot{gen: s.gen + 1, b: s.b, ov: s.ov.with(e), names: s.names, bound: s.bound, live: s.live}
}

// publish makes ns current and starts a fold when its overlay has grown.
// Called with mu held.
func (st *Store) publish(ns *Snapshot) *Snapshot {
	st.cur.Store(ns)
	if ns.ov.size() >= foldAt && st.folding == nil {
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
	if s.ov.size() == 0 {
		return s
	}
	ns := rebase(s, s, fold(s))
	st.cur.Store(ns)
	return ns
}

// fold builds the columns of s with its overlay applied. Columns of keys no
// changed node had or has are shared; when no node was added or removed and
// no name, rank or feature changed, the name, host, rank and feature
// columns are shared too.
func fold(s *Snapshot) *base {
	b := s.b
	changes := s.ov.latest()
	structural := s.bound != b.bound
	touched := map[string]bool{}
	changed := make([]uint64, (int(s.bound)+63)/64)
	for _, e := range changes {
		addBit(changed, e.id)
		var old *Node
		if e.id < b.bound {
			old = b.nodes[e.id]
		}
		if e.n == nil || old == nil || e.n.Name != old.Name || e.n.Rank != old.Rank || !slices.Equal(e.n.Features, old.Features) {
			structural = true
		}
		if e.n != nil {
			for _, m := range e.kv {
				touched[m.key] = true
			}
		}
		for k, c := range b.cols {
			if c.kind(e.id) != extra.KindMissing {
				touched[k] = true
			}
		}
	}
	var nb *base
	if structural {
		bb := newBaseBuilder(s.bound, nil)
		for id := uint32(0); id < s.bound; id++ {
			if n, ok := s.Node(id); ok {
				bb.addNode(id, n, s.HasExtra(id))
			}
		}
		// Names stay unique under the store's checks, so this cannot fail.
		nb, _ = bb.finish()
	} else {
		nb = &base{
			bound: b.bound, words: b.words, nodes: slices.Clone(b.nodes), has: slices.Clone(b.has),
			liveW: b.liveW, other: b.other, props: b.props, propBuf: b.propBuf, propW: b.propW, hosts: b.hosts, ranks: b.ranks, live: b.live,
		}
		for _, e := range changes {
			nb.nodes[e.id] = e.n
			setBit(nb.has, e.id, e.has)
		}
	}
	nb.cols = make(map[string]*column, len(b.cols)+len(touched))
	for k, c := range b.cols {
		if !touched[k] {
			nb.cols[k] = c
		}
	}
	// Each key's new values, in id order.
	lates := make(map[string][]late, len(touched))
	for _, e := range changes {
		if e.n == nil {
			continue
		}
		for _, m := range e.kv {
			lates[m.key] = append(lates[m.key], late{e.id, m.v})
		}
	}
	for key := range touched {
		c := b.cols[key]
		if c != nil {
			if pc, ok := c.patch(lates[key], changed, s.bound, nb.words); ok {
				nb.cols[key] = pc
				continue
			}
		}
		cb := newColBuilder(s.bound)
		if c != nil {
			c.feed(cb, changed, len(changes))
		}
		for _, l := range lates[key] {
			if l.v.Kind == extra.KindNumber {
				cb.addLateNum(l.id, l.v.Num)
			} else {
				cb.addValue(l.id, l.v)
			}
		}
		nb.cols[key] = cb.finish(s.bound, nb.words)
	}
	return nb
}

// rebase returns cur with the columns b (built from the snapshot folded)
// and only the changes made after that snapshot in its overlay.
func rebase(cur, folded *Snapshot, b *base) *Snapshot {
	ns := &Snapshot{gen: cur.gen, b: b, bound: cur.bound, live: cur.live}
	var keep []*ovEntry
	for _, e := range cur.ov.latest() {
		if folded.entry(e.id) != e {
			keep = append(keep, e)
		}
	}
	ns.ov = overlay{old: keep}
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
