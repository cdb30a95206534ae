package inventory

import (
	"fmt"
	"strings"
)

// Error is an unreadable or invalid node inventory. It names the file and,
// where it can, the line, column, node and field at fault.
type Error struct {
	File   string
	Line   int    // 1-based; 0 when the error is not about one place
	Column int    // 1-based byte column within Line; 0 when unknown
	Offset int    // byte offset in the file; meaningful when Line > 0
	Node   string // name of the node at fault, when known
	Field  string // name of the field at fault, when known
	Msg    string
	Err    error // underlying cause, such as an I/O error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Node != "" {
		fmt.Fprintf(&b, "node %q: ", e.Node)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// ByteOffset returns Offset, or -1 when the error is not about one place
// (Line is 0), so the error is a position.Positioned.
func (e *Error) ByteOffset() int {
	if e.Line == 0 {
		return -1
	}
	return e.Offset
}

// Warning is a problem that does not stop a node file from loading, such as
// a node whose extra data is not valid JSON (that node then matches no
// constrained job).
type Warning struct {
	File string
	Line int
	Node string
	Msg  string
}

// String formats the warning as file:line: node "name": message.
func (w Warning) String() string {
	var b strings.Builder
	b.WriteString(w.File)
	if w.Line > 0 {
		fmt.Fprintf(&b, ":%d", w.Line)
	}
	b.WriteString(": ")
	if w.Node != "" {
		fmt.Fprintf(&b, "node %q: ", w.Node)
	}
	b.WriteString(w.Msg)
	return b.String()
}
