// Package index owns sift's node store: the node records, their dense uint32
// ids, and immutable snapshots holding per-key columns of Slurm extra data
// (split by the node's JSON type), feature, hostname and rank columns, all as
// bitmaps. Leaf lookups write dense bitmap words for the VM; updates publish a
// new snapshot that shares what did not change.
//
// Node extra JSON is read in one strict pass that types it exactly as
// Slurm's json-c does (and as the independent oracle ast.ParseExtra does):
// non-RFC 8259 text and nesting past json-c's depth limit leave the node
// without extra data, lone surrogates decode to U+FFFD, a NUL ends keys and
// strings, the last of duplicate keys wins.
//
// # Layout
//
// Every sorted column (numbers, strings and booleans of one extra key,
// hostname suffixes of one prefix and width, ranks) keeps its ids in value
// order plus the start of each distinct value. Slurm's three-way comparison
// is monotone over ascending node values (a-b never decreases under IEEE
// rounding; NaN nodes are kept apart, they compare greater than everything),
// so every leaf is one or two intervals of positions, found by binary search
// with the exact comparison, never with a widened epsilon range. An
// interval becomes words through cumulative checkpoints: dense words holding
// the ids of the first k positions, for at most 64 values of k. A column with
// at most 63 distinct values gets a checkpoint at every value boundary, so
// its leaves cost one pass over the words and no bit patching; larger
// columns get evenly spaced checkpoints, and the positions between a cut
// and its nearest checkpoint are patched bit by bit. Columns small enough
// that bit setting is as cheap as a word pass have no checkpoints. Dense
// words were chosen over roaring containers because the VM works on dense
// words, a word pass costs about 1 µs at 100k nodes, and the roaring forms
// allocate or degrade on run containers (reference/go-engine-notes.md §6).
// Checkpoints cost 8 bytes a node per wide column; the whole index about
// 110 bytes a node on the synthetic cluster. Hostname columns whose
// suffixes and ids count up together (the usual naming) are kept as one run,
// and ranks equal to ids need no column at all. Names resolve through the
// hostname columns; only names without a numeric suffix sit in a map.
//
// # Building
//
// Builds of 4096 nodes or more use both cores: two workers parse the
// extra JSON a chunk of nodes ahead, one goroutine feeds the parsed values
// in id order to the column builders, another records names, ranks and
// features; the columns then finish two at a time. A column builder keeps
// (id, value) pairs until most of its first ids turn out to have the key,
// then writes values straight into the column's dense vref list.
//
// # Updates
//
// A snapshot is a columnar base plus an overlay of whole-node records
// changed since the base was built. Leaves answer from the base and then
// re-evaluate the overlay's nodes one by one. An update copies at most 32
// overlay pointers (a shared older list plus a small recent one); the live
// bitmap is shared unless nodes come or go. When the overlay reaches 128
// nodes, a background fold makes new touched columns and the store
// republishes the same generation on the new base; a writer that finds 4096
// overlay nodes waits for the running fold. A touched column whose distinct
// values the changes leave as they are is patched: vrefs copied, each
// value's run merged with the changed ids, value-boundary checkpoints
// copied with the changed bits fixed. Any other is rebuilt from the old one
// (fed in value order, so no re-sorting) with pooled scratch. 128 halves the fold cost an update carries
// (measured 13-16 µs at 64, 8-12 µs at 128, 100k nodes) for about 1.5 µs
// more per leaf just before a fold.
// Readers never wait: they hold immutable snapshots, published through an
// atomic pointer.
package index
