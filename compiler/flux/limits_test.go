package flux

import (
	"errors"
	"strings"
	"testing"
)

func TestOverLongOrDeepConstraintsAreRefusedBeforeParsing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parse  func() error
		offset int
		msg    string
	}{
		{"RFC 31 JSON over MaxLen", func() error {
			_, err := ParseRFC31([]byte(`{"properties":["` + strings.Repeat("a", MaxLen) + `"]}`))
			return err
		}, MaxLen, "longer than 65536 bytes"},
		{"requires over MaxLen", func() error {
			_, err := ParseRequires(strings.Repeat("a ", MaxLen/2+1))
			return err
		}, MaxLen, "longer than 65536 bytes"},
		{"requires with 901 open parentheses", func() error {
			_, err := ParseRequires(strings.Repeat("(", 901) + "a" + strings.Repeat(")", 901))
			return err
		}, 900, "more than 900 open parentheses"},
		{"requires of 5M nested parentheses", func() error {
			_, err := ParseRequires(strings.Repeat("(", 5_000_000))
			return err
		}, MaxLen, "longer than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse()
			var off interface{ ByteOffset() int }
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !errors.As(err, &off) || off.ByteOffset() != tc.offset {
				t.Fatalf("got %v, want an error at byte %d saying %q", err, tc.offset, tc.msg)
			}
		})
	}
}

func TestNestingWithinTheLimitsIsAccepted(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("(", 800) + "a" + strings.Repeat(")", 800),
		strings.Repeat("-a ", 148) + "b",
		strings.Repeat("a|", MaxLen/2-1) + "b",
	} {
		if _, err := ParseRequires(text); err != nil {
			t.Errorf("%.20q... (%d bytes): %v", text, len(text), err)
		}
	}
}
