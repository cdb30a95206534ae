// Package bitops owns the word kernels of sift's set algebra: bit operations
// over dense []uint64 node sets, where node id is bit id&63 of word id>>6.
// Every kernel has a plain Go loop; on amd64 with AVX2 the bulk of each slice
// goes through a vector loop instead, 32 bytes an instruction (Go does not
// vectorize loops itself), and the Go loop takes the remaining tail.
package bitops
