package flux

import (
	"strings"
	"testing"

	"github.com/nodesift/sift/position"
)

// TestLongInputErrorsEchoAWindow checks that an error about a long
// expression or value echoes at most about 100 bytes of each, not the whole
// input (flux-core echoes it whole; short inputs keep its exact message).
func TestLongInputErrorsEchoAWindow(t *testing.T) {
	long := strings.Repeat("a ", 5000)
	word := strings.Repeat("w", 10000)
	tests := []struct {
		name  string
		parse func() error
	}{
		{"requires unexpected end", func() error { _, err := ParseRequires(long + "&"); return err }},
		{"requires unclosed parenthesis", func() error { _, err := ParseRequires(long + "(" + long); return err }},
		{"requires unknown operator", func() error { _, err := ParseRequires("a " + word + ":x"); return err }},
		{"requires invalid hostlist", func() error { _, err := ParseRequires("host:" + word + "["); return err }},
		{"requires invalid operator character", func() error { _, err := ParseRequires(word + ",x:y"); return err }},
		{"requires multi-line", func() error { _, err := ParseRequires(strings.Repeat("a\n", 3000) + "("); return err }},
		{"rfc31 invalid property", func() error { _, err := ParseRFC31([]byte(`{"properties":["` + word + `!"]}`)); return err }},
		{"rfc31 invalid idset", func() error { _, err := ParseRFC31([]byte(`{"ranks":["` + word + `"]}`)); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse()
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if len(msg) > 3*position.Width || strings.Contains(msg, "\n") {
				t.Errorf("message of %d bytes (line break: %v): %.300s", len(msg), strings.Contains(msg, "\n"), msg)
			}
		})
	}
}
