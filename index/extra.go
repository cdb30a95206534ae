package index

import (
	"slices"
	"strings"

	"github.com/nodesift/sift/extra"
)

// extraKV is one node's parsed extra data, each key once. A slice beats a
// map here: documents have a handful of keys, and overlay leaves look one
// key up in many of them.
type extraKV []keyValue

// smallKV is the most keys an extraKV scans; larger ones are sorted by key
// and searched.
const smallKV = 16

type keyValue struct {
	key string
	v   extra.Value
}

// get returns the value under key (the zero Value, KindMissing, if absent).
func (kv extraKV) get(key string) (extra.Value, bool) {
	if len(kv) > smallKV {
		i, ok := slices.BinarySearchFunc(kv, key, func(m keyValue, k string) int { return strings.Compare(m.key, k) })
		if ok {
			return kv[i].v, true
		}
		return extra.Value{}, false
	}
	for i := range kv {
		if kv[i].key == key {
			return kv[i].v, true
		}
	}
	return extra.Value{}, false
}

// parseExtra reads raw node extra JSON the way slurmctld stores it. ok is
// false when raw is not strict JSON or nests too deep (the node then has no
// extra data). A valid document whose top level is not an object yields ok
// and no keys. A repeated key keeps its last value.
func parseExtra(r *extraReader, raw []byte) (kv extraKV, ok bool) {
	members, ok := r.read(raw)
	if !ok {
		return nil, false
	}
	kv = make(extraKV, 0, len(members))
	// Past a few keys, a map finds duplicates: scanning would be quadratic.
	var at map[string]int
	if len(members) > smallKV {
		at = make(map[string]int, len(members))
	}
	for _, m := range members {
		v := extra.Value{Kind: m.kind, Bool: m.t}
		switch m.kind {
		case extra.KindNumber:
			v.Num = m.num // as jsonNumber reads r.bytes(m.val)
		case extra.KindString:
			v.Str = r.intern(r.bytes(m.val))
		}
		key := r.bytes(m.key)
		i := -1
		if at != nil {
			if j, ok := at[string(key)]; ok {
				i = j
			}
		} else {
			for j := range kv {
				if kv[j].key == string(key) {
					i = j
					break
				}
			}
		}
		if i >= 0 {
			kv[i].v = v
			continue
		}
		if at != nil {
			at[string(key)] = len(kv)
		}
		kv = append(kv, keyValue{r.intern(key), v})
	}
	if len(kv) > smallKV {
		slices.SortFunc(kv, func(x, y keyValue) int { return strings.Compare(x.key, y.key) })
	}
	return kv, true
}
