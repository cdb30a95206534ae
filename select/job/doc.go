// Package job owns the shared vocabulary of node selection: a job's resource
// request (node counts, tasks, CPUs, memory, GPUs, sharing, required and
// excluded nodes, time limit, partition, priority, constraint) and the parser
// of its one-line text form, the per-node resources and state bitmaps derived
// from an index snapshot, the allocation a select plugin returns, and the
// errors that say whether a job is busy now or can never run.
package job
