package flux

// Error is an invalid RFC 31 constraint. Its message is flux-core's text for
// the same input.
type Error struct {
	// Offset is the byte offset in the JSON text of the value at fault.
	Offset int
	// Msg is flux-core's message.
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// ByteOffset returns the byte offset of the value at fault.
func (e *Error) ByteOffset() int { return e.Offset }

// RequiresError is a syntax error in a `--requires` expression. Its message
// reads as flux's job submission commands print it.
type RequiresError struct {
	// Text is the expression as given.
	Text string
	// Offset is the byte offset of the fault in Text.
	Offset int
	// Msg is flux-core's parser message; positions in it count characters.
	Msg string
}

func (e *RequiresError) Error() string { return "--requires='" + e.Text + "': " + e.Msg }

// ByteOffset returns the byte offset of the fault in the expression.
func (e *RequiresError) ByteOffset() int { return e.Offset }
