// Package index owns sift's node store: the node records, their dense uint32
// ids, and immutable snapshots holding per-key columns of Slurm extra data
// (split by the node's JSON type), feature, hostname and rank columns, all as
// bitmaps. Leaf lookups write dense bitmap words for the VM; updates publish a
// new snapshot that shares what did not change.
package index
