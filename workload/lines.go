package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxLineBytes bounds one line, so a file without newlines cannot make the
// reader hold all of it as one line.
const maxLineBytes = 1 << 20

// eachLine calls parse with every line of br (its newline kept), counting
// lines and byte offsets in *line and *off so parse can position its errors.
// Lines longer than br's buffer are assembled, up to maxLineBytes.
func eachLine(br *bufio.Reader, name string, line, off *int, parse func([]byte) error) error {
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(b) > maxLineBytes {
				return &ParseError{File: name, Line: *line + 1, Pos: posAt(*off), Msg: fmt.Sprintf("line longer than %d bytes", maxLineBytes), Err: ErrRange}
			}
			long = append(long, b...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: %w", name, err)
		}
		if long != nil {
			long = append(long, b...)
			b, long = long, nil
		}
		if len(b) > 0 {
			*line++
			if perr := parse(b); perr != nil {
				return perr
			}
			*off += len(b)
		}
		if err != nil {
			return nil
		}
	}
}
