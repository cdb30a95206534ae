package workload

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/nodesift/sift/position"
)

func posAt(off int) position.Pos { return position.Pos{Offset: off} }

// readBuffer is the reader's buffer: big enough that a gzip stream and a
// line scan both run at memory speed.
const readBuffer = 256 << 10

// decompress returns a buffered reader of r's contents, gunzipped when r
// starts with the gzip magic bytes.
func decompress(r io.Reader, name string) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(r, readBuffer)
	magic, _ := br.Peek(len(gzipMagic))
	if !bytes.Equal(magic, gzipMagic) {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return bufio.NewReaderSize(zr, readBuffer), nil
}

// OpenSWF reads the SWF log at path (plain or gzip-compressed).
func OpenSWF(path string, opt Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSWF(f, path, opt)
}
