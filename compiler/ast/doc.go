// Package ast defines the constraint tree that every sift language front end
// produces (Slurm --extra, Flux RFC 31, Flux --requires), Slurm's value
// semantics (how a node's extra JSON is typed and how a request value
// compares with it), and the reference evaluator: a plain per-node walk of
// the tree, written straight from how Slurm and flux-core behave. The
// reference evaluator is the oracle that the compiled bytecode VM is tested
// against.
package ast
