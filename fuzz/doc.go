// Package fuzz owns sift's cross-package differential fuzzing: the shared
// generators of random inventories and constraints (GenNodes, GenSlurmExpr)
// and fuzz targets that run each language through the whole engine (front
// end, compiler, index, VM) and compare the node set with the reference
// evaluator's, node by node.
package fuzz
