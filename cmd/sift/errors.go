package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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

// offsetter is implemented by parse errors that know the byte they point at.
type offsetter interface{ ByteOffset() int }

// constraintError marks err as an invalid constraint text (exit 2) and
// remembers the text so the report can put a caret under the offending byte.
func constraintError(text string, err error) error {
	return &exitError{code: exitInvalidInput, err: &sourceError{text: text, err: err}}
}

type sourceError struct {
	text string
	err  error
}

func (e *sourceError) Error() string { return e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

// report prints err as one line (plus the source and a caret line for
// positioned constraint errors) and returns the exit code.
func report(w io.Writer, err error) int {
	fmt.Fprintf(w, "sift: %s\n", err)
	var src *sourceError
	var off offsetter
	if errors.As(err, &src) && errors.As(err, &off) && !strings.ContainsAny(src.text, "\n\r") {
		o := off.ByteOffset()
		if o >= 0 && o <= len(src.text) {
			win, c := echoWindow(src.text, o)
			fmt.Fprintf(w, "  %s\n  %s^\n", win, caretPad(win[:c]))
		}
	}
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

// echoHalf bounds the echo of an input to about 100 bytes around the caret,
// so a huge input is not printed whole.
const echoHalf = 48

// echoWindow returns the part of text within echoHalf bytes of byte o, with
// "..." where it is cut, and o's offset inside that window.
func echoWindow(text string, o int) (string, int) {
	start, end := max(0, o-echoHalf), min(len(text), o+echoHalf)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	win, c := text[start:end], o-start
	if start > 0 {
		win, c = "..."+win, c+3
	}
	if end < len(text) {
		win += "..."
	}
	return win, c
}

// caretPad returns whitespace as wide as prefix, keeping tabs so the caret
// lines up under the same byte in a terminal.
func caretPad(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
