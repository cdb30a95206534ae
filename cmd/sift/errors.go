package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nodesift/sift/position"
)

// Exit codes of every sift command.
const (
	exitOK           = 0
	exitRuntime      = 1 // unreadable files, I/O errors, invalid node files
	exitInvalidInput = 2 // invalid constraint, expression or flag
	exitUnsatisfied  = 3 // select: job cannot be satisfied; bench: regression
)

// exitError carries the exit code an error maps to.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// invalidInput marks err as the user's input being invalid (exit 2).
func invalidInput(err error) error { return &exitError{code: exitInvalidInput, err: err} }

// unsatisfied marks err as a well-formed request that cannot be met (exit 3).
func unsatisfied(err error) error { return &exitError{code: exitUnsatisfied, err: err} }

// constraintError marks err as an invalid constraint text (exit 2) and
// remembers the text so the report can put a caret under the offending byte.
// A front end's positioned error is reported without the compiler's
// wrapping, so check, match and select word it alike.
func constraintError(text string, err error) error {
	var p position.Positioned
	if errors.As(err, &p) {
		err = p
	}
	return &exitError{code: exitInvalidInput, err: withSource(text, err)}
}

// withSource remembers the text err's position refers to, so the report can
// echo the place with a caret under it.
func withSource(text string, err error) error { return &sourceError{text: text, err: err} }

type sourceError struct {
	text string
	err  error
}

func (e *sourceError) Error() string { return e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

// report prints err as one line (plus an excerpt of the input and a caret
// line for positioned errors whose input is known) and returns the exit
// code.
func report(w io.Writer, err error) int {
	fmt.Fprintf(w, "sift: %s\n", err)
	printCaret(w, err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") ||
		strings.Contains(err.Error(), "flag needs an argument") || strings.Contains(err.Error(), "accepts ") {
		return exitInvalidInput
	}
	return exitRuntime
}

// printCaret prints the line of the input holding the byte err points at,
// cut to about 100 bytes around it, and a caret under that byte; the line
// number leads when the input has several lines. It prints nothing when err
// carries no position or no input.
func printCaret(w io.Writer, err error) {
	var src *sourceError
	if !errors.As(err, &src) {
		return
	}
	off, ok := position.Of(src)
	if !ok {
		return
	}
	ex, ok := position.Around(src.text, off)
	if !ok {
		return
	}
	lead := "  "
	if ex.Lines > 1 {
		lead = fmt.Sprintf("  line %d: ", ex.Line)
	}
	fmt.Fprintf(w, "%s%s\n%s%s\n", lead, ex.Text, strings.Repeat(" ", len(lead)), ex.Caret)
}
