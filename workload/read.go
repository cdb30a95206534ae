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

// OpenSacct reads the sacct --parsable2 (or CSV) file at path, plain or
// gzip-compressed.
func OpenSacct(path string, opt Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSacct(f, path, opt)
}

// Format is a workload file format.
type Format uint8

// The formats Read tells apart.
const (
	FormatSWF Format = iota
	FormatSacct
	FormatSacctJSON
)

func (f Format) String() string {
	return [...]string{"swf", "sacct", "sacct-json"}[f]
}

// sniffBytes is how much of a file Read looks at to tell its format.
const sniffBytes = 4096

// Read reads a workload in any format of this package, plain or
// gzip-compressed, told apart by its contents: a JSON object is sacct
// --json; a first line that names JobID between '|' or ',' is sacct
// --parsable2 or CSV; anything else is SWF.
func Read(r io.Reader, name string, opt Options) (*Trace, error) {
	br, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	head, _ := br.Peek(sniffBytes)
	switch Sniff(head) {
	case FormatSacctJSON:
		return ReadSacctJSON(br, name, opt)
	case FormatSacct:
		return ReadSacct(br, name, opt)
	}
	return ReadSWF(br, name, opt)
}

// Sniff tells the format of a workload from its first bytes (decompressed).
func Sniff(head []byte) Format {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		return FormatSacctJSON
	}
	line, _, _ := bytes.Cut(t, []byte{'\n'})
	if bytes.ContainsAny(line, "|,") && bytes.Contains(bytes.ToLower(line), []byte("jobid")) {
		return FormatSacct
	}
	return FormatSWF
}

// Open reads the workload file at path with Read.
func Open(path string, opt Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, opt)
}
