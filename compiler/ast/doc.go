// Package ast defines the constraint tree that every sift language front end
// produces (Slurm --extra, Flux RFC 31, Flux --requires), and the reference
// evaluator: a plain per-node walk of that tree, written straight from how
// Slurm and flux-core behave. The reference evaluator is the oracle that the
// compiled bytecode VM is tested against.
package ast
