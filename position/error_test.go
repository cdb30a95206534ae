package position

import (
	"errors"
	"fmt"
	"testing"
)

// parseError is a parser's own error type built on Pos, as hostlist's is.
type parseError struct {
	Pos
	Msg string
	Err error
}

func (e *parseError) Error() string { return fmt.Sprintf("bad at byte %d: %s", e.Offset, e.Msg) }
func (e *parseError) Unwrap() error { return e.Err }

var errClass = errors.New("class")

func TestOfFindsThePositionedError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		off  int
		ok   bool
	}{
		{"plain", NewError(3, "x"), 3, true},
		{"wrapped by fmt", fmt.Errorf("ctx: %w", NewError(5, "x")), 5, true},
		{"own type embedding Pos", fmt.Errorf("ctx: %w", &parseError{Pos: Pos{7}}), 7, true},
		{"not about one byte", NewError(-1, "x"), -1, false},
		{"none", errors.New("plain"), -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			off, ok := Of(tt.err)
			if off != tt.off || ok != tt.ok {
				t.Errorf("Of = %d, %v; want %d, %v", off, ok, tt.off, tt.ok)
			}
		})
	}
}

func TestOwnErrorTypesKeepTheirWordingAndClass(t *testing.T) {
	err := fmt.Errorf("ctx: %w", &parseError{Pos: Pos{1}, Msg: "m", Err: errClass})
	if !errors.Is(err, errClass) {
		t.Errorf("errors.Is(%v, class) = false", err)
	}
	if got := err.Error(); got != "ctx: bad at byte 1: m" {
		t.Errorf("Error() = %q", got)
	}
}
