// Package inventory reads node inventories into index.Node records: the sift
// node file (a JSON document or JSON Lines, detected by content) and a
// deterministic synthetic cluster, chosen by a --nodes specification. Load's
// detector table is where further formats plug in. A sift node file in its
// common form (a node a line, as sift inventory convert writes it) is read
// by a streaming reader that never holds the whole file, and so is Slurm's
// JSON output (scontrol show node --json, sinfo --json), an entry at a
// time; anything else, and every error, comes from the general reader over
// the whole file.
package inventory
