// Package candidate owns the chain of named bitmap stages that narrows a
// cluster's nodes to one job's candidates: partition, constraint, excluded
// nodes and node configuration (the nodes a select plugin is given), then
// node state and any masks a scheduler adds (nodes reserved for
// higher-priority jobs, limits later) for the nodes a job could use now.
// Every stage records how many nodes it removed and why, so `sift select
// --explain` and a pending job's reason come from the same place.
package candidate
