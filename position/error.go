package position

import "errors"

// Positioned is an error that knows the byte of its input it refers to.
// ByteOffset returns that byte's offset, or -1 when the error is not about
// one byte. Find it in a chain of wrapped errors with errors.As or Of.
type Positioned interface {
	error
	ByteOffset() int
}

// Pos is the byte an error refers to. A parser's error type embeds it to
// become Positioned and keeps its own Error method, so each package words
// its messages as before while every caret is found the same way.
type Pos struct {
	// Offset is the byte offset in the input text.
	Offset int
}

// ByteOffset returns Offset.
func (p Pos) ByteOffset() int { return p.Offset }

// Error is a problem at one byte of an input text, for a parser that needs
// no error type of its own.
type Error struct {
	Pos
	// Msg says what is wrong there.
	Msg string
	// Err is the class or cause of the problem, for errors.Is; may be nil.
	Err error
}

// NewError returns an *Error at byte off with msg as its message.
func NewError(off int, msg string) *Error { return &Error{Pos: Pos{off}, Msg: msg} }

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Of returns the byte offset of the first positioned error in err's chain,
// and false when there is none or it is not about one byte.
func Of(err error) (int, bool) {
	var p Positioned
	if !errors.As(err, &p) {
		return -1, false
	}
	off := p.ByteOffset()
	return off, off >= 0
}
