package inventory

import (
	"errors"
	"io/fs"
	"os"

	"github.com/nodesift/sift/index"
)

// format is one inventory format Load understands.
type format struct {
	name string
	// detect reports whether data is in this format, from its content only.
	detect func(data []byte) bool
	parse  func(file string, data []byte) ([]index.Node, []Warning, error)
}

// formats is tried in order; the first format whose detect accepts the data
// reads it. More specific formats go first: the sift node file accepts any
// JSON object, so it stays last.
var formats = []format{
	{name: "sift node file", detect: isNodeFile, parse: ParseNodeFile},
}

// Load reads the node inventory at path, detecting its format by content.
func Load(path string) ([]index.Node, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, &Error{File: path, Msg: "cannot read node file", Err: err}
	}
	return Parse(path, data)
}

// Parse reads an inventory held in memory, detecting its format by content;
// file names it in errors and warnings.
func Parse(file string, data []byte) ([]index.Node, []Warning, error) {
	for _, f := range formats {
		if f.detect(data) {
			return f.parse(file, data)
		}
	}
	if (&scanner{b: data}).ws(0) == len(data) {
		return nil, nil, &Error{File: file, Msg: "empty node file"}
	}
	return nil, nil, &Error{File: file, Msg: "unrecognized node file format, expected a sift node file (JSON)"}
}
