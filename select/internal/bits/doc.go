// Package bits owns the dense node bitsets the select plugins work in: one
// bit per node id in 64-bit words, converted to and from roaring bitmaps at
// the plugin boundary.
package bits
