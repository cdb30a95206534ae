package flux

import (
	"strings"

	"github.com/nodesift/sift/position"
)

// Error is an invalid RFC 31 constraint. Its message is flux-core's text for
// the same input.
type Error struct {
	// Pos is the byte offset in the constraint text of the value at fault.
	position.Pos
	// Msg is flux-core's message.
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// RequiresError is a syntax error in a `--requires` expression. Its message
// reads as flux's job submission commands print it.
type RequiresError struct {
	// Text is the expression as given.
	Text string
	// Pos is the byte offset of the fault in Text.
	position.Pos
	// Msg is flux-core's parser message; positions in it count characters.
	Msg string
}

// Error echoes at most about 100 bytes of Text, around the fault, with its
// line breaks escaped so the message stays one line.
func (e *RequiresError) Error() string {
	echo, _ := position.Window(e.Text, e.Offset)
	return "--requires='" + oneLine.Replace(echo) + "': " + e.Msg
}

var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`)
