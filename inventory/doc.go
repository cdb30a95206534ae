// Package inventory reads node inventories into index.Node records: the sift
// node file (a JSON document or JSON Lines, detected by content) and a
// deterministic synthetic cluster, chosen by a --nodes specification. Load's
// detector table is where further formats plug in. A sift node file in its
// common form (a node a line, as sift inventory convert writes it) is read
// by a streaming reader that never holds the whole file; anything else, and
// every error and warning, comes from the general reader over the whole file.
package inventory
