package idset

import (
	"errors"
	"testing"
)

func TestDecodeAcceptsWhatLibidsetAccepts(t *testing.T) {
	tests := []struct {
		in   string
		want string // ranged encoding
	}{
		{"", ""},
		{"[]", ""},
		{",", ""},
		{"[,]", ""},
		{"0", "0"},
		{"1,,2", "1-2"},
		{",1", "1"},
		{"1,", "1"},
		{"[1,]", "1"},
		{"1-2,3", "1-3"},
		{"0-3,5", "0-3,5"},
		{"[0-3,5]", "0-3,5"},
		{"7-9", "7-9"},
		{"0,1", "0-1"},
		{"2147483647", "2147483647"},
		{"0-2147483647", "0-2147483647"},
		{"1,3,5-7,10", "1,3,5-7,10"},
	}
	for _, tt := range tests {
		s, err := Decode(tt.in)
		if err != nil {
			t.Errorf("Decode(%q): %v", tt.in, err)
			continue
		}
		if got := s.Encode(Ranged); got != tt.want {
			t.Errorf("Decode(%q).Encode(Ranged) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeRejectsWithLibidsetMessages(t *testing.T) {
	tests := []struct {
		in     string
		msg    string
		offset int
		class  error
	}{
		{"[0", "mismatched or nested brackets", 0, ErrInvalid},
		{"0]", "mismatched or nested brackets", 1, ErrInvalid},
		{"[[0]]", "mismatched or nested brackets", 1, ErrInvalid},
		{"0,[2", "mismatched or nested brackets", 2, ErrInvalid},
		{"[1-3]]", "mismatched or nested brackets", 4, ErrInvalid},
		{"00", "error parsing range '00'", 0, ErrInvalid},
		{"01", "error parsing range '01'", 0, ErrInvalid},
		{"07", "error parsing range '07'", 0, ErrInvalid},
		{"1,07", "error parsing range '07'", 2, ErrInvalid},
		{"3-3", "error parsing range '3-3'", 0, ErrInvalid},
		{"1-1", "error parsing range '1-1'", 0, ErrInvalid},
		{"3-0", "error parsing range '3-0'", 0, ErrInvalid},
		{"1-0", "error parsing range '1-0'", 0, ErrInvalid},
		{"1-2x", "error parsing range '1-2x'", 0, ErrInvalid},
		{"1-2-3", "error parsing range '1-2-3'", 0, ErrInvalid},
		{"4.2", "error parsing range '4.2'", 0, ErrInvalid},
		{"0x10", "error parsing range '0x10'", 0, ErrInvalid},
		{"1e3", "error parsing range '1e3'", 0, ErrInvalid},
		{"+1", "error parsing range '+1'", 0, ErrInvalid},
		{"-1", "error parsing range '-1'", 0, ErrInvalid},
		{" 1", "error parsing range ' 1'", 0, ErrInvalid},
		{"1-01", "error parsing range '1-01'", 0, ErrInvalid},
		{"3,2", "range '2' is out of order", 2, ErrInvalid},
		{"2,2", "range '2' is out of order", 2, ErrInvalid},
		{"1-3,3", "range '3' is out of order", 4, ErrInvalid},
		{"1-3,2-5", "range '2-5' is out of order", 4, ErrInvalid},
		{"5,1-3", "range '1-3' is out of order", 2, ErrInvalid},
		{"[5,1-3]", "range '1-3' is out of order", 3, ErrInvalid},
		{"2147483648", "error appending '2147483648': set universe size would exceed maximum 2147483647", 0, ErrRange},
		{"0-2147483648", "error appending '0-2147483648': set universe size would exceed maximum 2147483647", 0, ErrRange},
		{"4294967294", "error appending '4294967294': Invalid argument", 0, ErrInvalid},
		{"4294967295", "error appending '4294967295': Invalid argument", 0, ErrInvalid},
		// libidset truncates these to 32 bits ({0} and {1}); sift refuses them.
		{"4294967296", "error appending '4294967296': set universe size would exceed maximum 2147483647", 0, ErrRange},
		{"4294967297", "error appending '4294967297': set universe size would exceed maximum 2147483647", 0, ErrRange},
		{"18446744073709551615", "error appending '18446744073709551615': Invalid argument", 0, ErrInvalid},
		{"5,4294967296", "range '4294967296' is out of order", 2, ErrInvalid},
		{"4294967297-3", "error appending '4294967297-3': set universe size would exceed maximum 2147483647", 0, ErrRange},
		{"18446744073709551616", "error parsing range '18446744073709551616'", 0, ErrInvalid},
	}
	for _, tt := range tests {
		_, err := Decode(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Decode(%q) = %v, want *Error", tt.in, err)
			continue
		}
		if e.Msg != tt.msg || e.ByteOffset() != tt.offset || !errors.Is(err, tt.class) {
			t.Errorf("Decode(%q) = %q at %d (%v), want %q at %d (%v)", tt.in, e.Msg, e.Offset, e.Err, tt.msg, tt.offset, tt.class)
		}
	}
}

func TestEncodeFlagsAsIdsetEncode(t *testing.T) {
	tests := []struct {
		in    string
		flags Flags
		want  string
	}{
		{"0-1", Ranged, "0-1"},
		{"0-1", 0, "0,1"},
		{"2", Brackets | Ranged, "2"},
		{"2", Brackets, "2"},
		{"7-9", Brackets | Ranged, "[7-9]"},
		{"7-9", Brackets, "[7,8,9]"},
		{"", Brackets | Ranged, ""},
		{"", 0, ""},
		{"0-3,5", Ranged, "0-3,5"},
		{"0-3,5", Brackets | Ranged, "[0-3,5]"},
		{"0-3,5", 0, "0,1,2,3,5"},
	}
	for _, tt := range tests {
		s, err := Decode(tt.in)
		if err != nil {
			t.Fatalf("Decode(%q): %v", tt.in, err)
		}
		if got := s.Encode(tt.flags); got != tt.want {
			t.Errorf("Decode(%q).Encode(%d) = %q, want %q", tt.in, tt.flags, got, tt.want)
		}
	}
}

func TestHugeSetIsStoredAsOneRange(t *testing.T) {
	s, err := Decode("0-2147483647")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Ranges()) != 1 || s.Count() != 1<<31 {
		t.Fatalf("ranges %v count %d", s.Ranges(), s.Count())
	}
	if !s.Contains(MaxID) || !s.Contains(0) {
		t.Fatal("Contains failed at the ends")
	}
}

func TestParseCollectsSortsAndDedupes(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"7,1,2,3", "1-3,7"},
		{"1 2 3", "1-3"},
		{"3,2,2,1", "1-3"},
		{"[5-7, 1]", "1,5-7"},
		{"9-5", "5-9"},
		{"", ""},
		{"007", "7"},
	}
	for _, tt := range tests {
		s, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := s.Encode(Ranged); got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"x", "1-", "-1", "2147483648", "1-2-3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestContains(t *testing.T) {
	s, _ := Decode("1-3,7,10-12")
	for id, want := range map[uint32]bool{0: false, 1: true, 3: true, 4: false, 7: true, 8: false, 12: true, 13: false} {
		if s.Contains(id) != want {
			t.Errorf("Contains(%d) = %v", id, !want)
		}
	}
}

func FuzzIdsetDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		set, err := Decode(s)
		if err != nil {
			return
		}
		for _, flags := range []Flags{0, Ranged, Brackets, Ranged | Brackets} {
			if flags&Ranged == 0 && set.Count() > 10000 {
				continue
			}
			enc := set.Encode(flags)
			back, err := Decode(enc)
			if err != nil {
				t.Fatalf("Decode(%q) -> Encode(%d) = %q does not decode: %v", s, flags, enc, err)
			}
			if back.Encode(Ranged) != set.Encode(Ranged) {
				t.Fatalf("round trip of %q via %q changed the set", s, enc)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	for _, in := range []string{"0-1023", "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31"} {
		b.Run("in="+in[:5], func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Decode(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
