// Package cputime reads the CPU time the calling thread has used, so that
// benchmarks can report how much processor time an operation took apart
// from the wall time, which other processes on a shared machine inflate.
package cputime
