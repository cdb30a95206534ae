package workload

import (
	"errors"
	"fmt"

	"github.com/nodesift/sift/position"
)

// ErrSyntax and ErrRange classify the errors of every reader: a value that
// is not written as its format says, and a value outside what sift can hold
// or what the format allows. Test for them with errors.Is.
var (
	ErrSyntax = errors.New("invalid workload syntax")
	ErrRange  = errors.New("workload value out of range")
)

// ParseError is a problem at one byte of a workload file. Offset counts
// bytes of the decompressed text (a .gz file's offsets are those of its
// contents, as zcat prints them).
type ParseError struct {
	position.Pos
	// File names the input, as the caller passed it.
	File string
	// Line is the 1-based line of Offset.
	Line int
	// Field names the field at fault ("run time", "Submit"), or "".
	Field string
	// Msg says what is wrong.
	Msg string
	// Err is ErrSyntax or ErrRange.
	Err error
}

func (e *ParseError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: byte %d: %s: %s", e.File, e.Line, e.Offset, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d: byte %d: %s", e.File, e.Line, e.Offset, e.Msg)
}

// Unwrap returns the error class.
func (e *ParseError) Unwrap() error { return e.Err }
