// Package inventory reads node inventories into index.Node records: the sift
// node file (a JSON document or JSON Lines, detected by content) and a
// deterministic synthetic cluster, chosen by a --nodes specification. Load's
// detector table is where further formats plug in.
package inventory
