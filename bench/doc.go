// Package bench owns sift's benchmark harness as a product: a registry of
// suites (compile, evaluate per language, ingest, hostlist, ...), each run at
// several cluster sizes on synthetic and real inventories, timed by its own
// runner (adaptive inner loop, median and p95 over repetitions, allocations),
// side by side with in-process baselines (the per-node reference evaluator
// and expr-lang/expr) that must return the same node sets, plus the reports
// built on the results: a table, benchstat lines, JSON, a regression gate
// judged on ratios to the in-run baselines, CPU profile summaries and an HTML
// page of log-log plots.
package bench
