// Package bitset owns the dense bitsets of node (and core) ids that the
// select plugins and sched's backfill map work in: one bit per id in 64-bit
// words, converted to and from roaring bitmaps at the plugin boundary.
package bitset
