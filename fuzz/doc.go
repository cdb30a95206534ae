// Package fuzz owns sift's cross-package differential fuzzing: the shared
// generators of random inventories and constraints (GenNodes, GenSlurmExpr,
// GenFluxExpr) and fuzz targets that run each language through the whole
// engine (front end, compiler, index, VM) and compare the node set with the
// reference evaluator's node by node, and that check node selection
// (select/linear exactly, select/cons_tres one-sidedly) against a brute-force
// search over node subsets on clusters of at most 12 nodes.
package fuzz
