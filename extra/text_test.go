package extra

import "testing"

const refSurrogate = "json-c json_tokener_state_escape_unicode, probed with libjson-c 0.16"

func TestDecodeEscapesAsJSONC(t *testing.T) {
	tests := []struct {
		body, want string
		ref        string
	}{
		{`plain`, "plain", "no escapes"},
		{`a\/b\\c\"d\te\bf\fg\nh\ri`, "a/b\\c\"d\te\bf\fg\nh\ri", "one-character escapes"},
		{`\u0041\u00e9\u20AC`, "A\u00e9\u20ac", "\\u escapes, either case of hex"},
		{`\ud83d\ude00`, "\U0001F600", refSurrogate + ": pair"},
		{`\ud800`, "\ufffd", refSurrogate + ": lone high at the end"},
		{`\udc00x`, "\ufffdx", refSurrogate + ": lone low"},
		{`\ud800\u0041`, "\ufffdA", refSurrogate + ": high then non-surrogate"},
		{`\ud800\ud800`, "\ufffd\ufffd", refSurrogate + ": two highs"},
		{`\ud800\n`, "\ufffd\n", refSurrogate + ": high then other escape"},
		{`\ud800x`, "\ufffdx", refSurrogate + ": high then raw byte"},
		{"\xff\xfe", "\xff\xfe", refSurrogate + ": raw bytes kept"},
		{`ab\u0000cd`, "ab\x00cd", "NUL kept for CString to cut"},
	}
	for _, tt := range tests {
		if got := string(DecodeEscapes([]byte("keep:"), []byte(tt.body))); got != "keep:"+tt.want {
			t.Errorf("DecodeEscapes(%q) = %q, want %q (%s)", tt.body, got, "keep:"+tt.want, tt.ref)
		}
	}
}

func TestHex4(t *testing.T) {
	tests := []struct {
		in   string
		want rune
		ok   bool
	}{
		{"0041", 0x41, true},
		{"DbFf", 0xdbff, true},
		{"12345", 0x1234, true},
		{"123", 0, false},
		{"12g4", 0, false},
	}
	for _, tt := range tests {
		if got, ok := Hex4([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("Hex4(%q) = %#x, %v; want %#x, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCStringEndsAtNUL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{{"", ""}, {"abc", "abc"}, {"ab\x00cd", "ab"}, {"\x00", ""}} {
		if got := CString(tt.in); got != tt.want {
			t.Errorf("CString(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(CBytes([]byte(tt.in))); got != tt.want {
			t.Errorf("CBytes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
