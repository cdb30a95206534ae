// Package slurm is the front end for Slurm's extra constraints (the job
// option --extra): it parses a constraint with every rule of Slurm's own
// parser into the shared constraint tree of compiler/ast, reports invalid
// constraints with the byte offset where the problem is and what was
// expected there, and prints a tree back as normalized Slurm text.
package slurm
