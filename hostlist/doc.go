// Package hostlist owns hostlists: the compressed host name lists of Flux
// (RFC 29, as flux-core's libhostlist implements it) and Slurm (as Slurm's
// src/common/hostlist.c implements it), behind one API with a Dialect
// argument. A List is kept as ranges (prefix, lo, hi, zero-padding width, or
// an opaque single host) in input order with duplicates, so that parsing,
// counting, compressing and looking a name up never expand it; only Expand
// does, up to a caller-given limit. Queries describes a list's membership as
// per-(alpha, digit count) value ranges for the node index.
//
// Deliberate differences from the C libraries, all in inputs no real
// cluster produces: a range covering all 2^64 numbers (which wraps the C
// range-size check) is refused with ErrRange; a list may hold at most
// MaxRanges ranges, and Slurm's nested prefix brackets may build at most
// MaxRanges prefixes (the C code allocates or loops until it is done); a
// range ending at 2^64-1 never merges with a following range starting at 0
// (C wraps); a name whose trailing digits overflow 64 bits never matches a
// numbered range in Find (flux-core's lookup saturates it to 2^64-1);
// Expand does not copy libhostlist's iterator, which truncates host names
// to 270 bytes; and in the Slurm dialect Queries describes plain membership
// in the expansion, while Find keeps hostlist_find's extra matches (see
// Find).
package hostlist
