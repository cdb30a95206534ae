// Package vm owns sift's compiled constraint programs: the opcodes, the
// Program (bytecode plus a constant pool of leaf operands converted ahead of
// time), the Builder that code generators use to emit well-formed programs,
// and the Machine that runs a program as set algebra over dense bitmap words
// of an index snapshot, inside the range of words that can still hold
// members. It also evaluates a program against a single node,
// for node updates and explanations.
package vm
