package convert

import (
	"bytes"
	"encoding/json"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
)

// extraJSON renders a node's synthesized extra data as a JSON object with
// sorted keys, so the committed files are stable.
func extraJSON(m map[string]any) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // only strings, numbers and booleans: always marshals
	}
	return b
}

// NodeFile renders nodes as a sift node file, one node a line.
func NodeFile(nodes []index.Node) []byte {
	var b bytes.Buffer
	if err := inventory.WriteNodeFile(&b, nodes); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}
