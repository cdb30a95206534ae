// Package compiler turns constraint text in any of sift's languages (Slurm
// --extra, Flux RFC 31 JSON, Flux --requires) into a vm.Program: it runs the
// language's front end, optimizes the shared AST (flattening, constant
// folding, duplicate removal, selectivity ordering from index statistics),
// generates bytecode with each leaf's operand converted ahead of time, and
// caches compiled programs by language and text.
package compiler
