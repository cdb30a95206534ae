// Package idset owns RFC 22 idsets: sets of non-negative integer ids (Flux
// ranks) written as comma-separated ids and ranges such as "0-3,5". Decode
// accepts exactly what flux-core's libidset accepts (strictly ascending, no
// duplicates, no leading zeros, a-b only with a < b, one optional outer
// bracket pair, empty elements skipped, largest id 2147483647) and reports
// the same messages, with byte offsets. One deliberate difference: libidset
// parses numbers as 64-bit and silently truncates them to 32 bits, so
// "4294967296" decodes to {0} there; Decode refuses every id of 2^32 and
// more instead ("set universe size would exceed maximum 2147483647"). Its order and
// validity checks still see the truncated value first, as libidset's do, so
// every input libidset rejects is rejected with libidset's message. Sets are
// stored as sorted ranges, never one entry per id.
package idset
