// Package extra owns the vocabulary of Slurm's node extra data that the
// front ends, the index and the VM share: the kinds and values a node's
// extra JSON holds, the six comparison operators of an extra constraint with
// Slurm's three-way comparison, and how json-c decodes the strings (escapes,
// and the C-string cut at a NUL). It imports only the standard library.
package extra
