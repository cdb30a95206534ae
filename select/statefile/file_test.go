package statefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestSaveLoadRoundTripKeepsOld(t *testing.T) {
	f := &File{Dir: filepath.Join(t.TempDir(), "new-dir"), Name: "linear.state"}
	if _, _, err := f.Load("linear"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no file yet: %v", err)
	}
	for i, p := range []string{"one", "two"} {
		if err := f.Save("linear", int64(100+i), []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	got, saved, err := f.Load("linear")
	if err != nil || string(got) != "two" || saved != 101 {
		t.Fatalf("got %q %d %v", got, saved, err)
	}
	old := &File{Dir: f.Dir, Name: "linear.state.old"}
	if got, _, err := old.Load("linear"); err != nil || string(got) != "one" {
		t.Fatalf("previous copy: %q %v", got, err)
	}
}

func TestLoadRefusesDamage(t *testing.T) {
	dir := t.TempDir()
	f := &File{Dir: dir, Name: "s"}
	if err := f.Save("cons_tres", 1, []byte("payload bytes")); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "s"))
	for _, tc := range []struct {
		name string
		data func() []byte
		want error
	}{
		{"flipped payload byte", func() []byte { b := bytes.Clone(good); b[len(b)-6] ^= 1; return b }, ErrCorrupt},
		{"truncated", func() []byte { return good[:len(good)-3] }, ErrTruncated},
		{"truncated header", func() []byte { return good[:10] }, ErrTruncated},
		{"empty", func() []byte { return nil }, ErrTruncated},
		{"newer version", func() []byte { b := bytes.Clone(good); binary.LittleEndian.PutUint16(b[8:], Version+1); return b }, ErrNewer},
		{"not a state file", func() []byte { return []byte("hello, world, this is text") }, ErrNotState},
		{"trailing bytes", func() []byte { return append(bytes.Clone(good), 0) }, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "s"), tc.data(), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := f.Load("cons_tres")
			var fe *FileError
			if !errors.Is(err, tc.want) || !errors.As(err, &fe) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	os.WriteFile(filepath.Join(dir, "s"), good, 0o600)
	if _, _, err := f.Load("linear"); !errors.Is(err, ErrKind) {
		t.Fatalf("other plugin's state: %v", err)
	}
}

func TestCrashMidSaveKeepsLastGoodState(t *testing.T) {
	for _, step := range []string{"written", "synced", "old-kept"} {
		t.Run(step, func(t *testing.T) {
			f := &File{Dir: t.TempDir(), Name: "s"}
			if err := f.Save("linear", 1, []byte("good")); err != nil {
				t.Fatal(err)
			}
			crash := errors.New("crash")
			f.hook = func(s string) error {
				if s == step {
					return crash
				}
				return nil
			}
			if err := f.Save("linear", 2, []byte("half-written")); !errors.Is(err, crash) {
				t.Fatalf("save: %v", err)
			}
			f.hook = nil
			got, saved, err := f.Load("linear")
			if err != nil || string(got) != "good" || saved != 1 {
				t.Fatalf("after a crash at %s: %q %d %v", step, got, saved, err)
			}
		})
	}
}

func TestDecoderRefusesShortAndHugeCounts(t *testing.T) {
	var e Encoder
	e.U32(1 << 30)
	d := NewDecoder(e.Buf)
	if n := d.Count(4); n != 0 || d.Err() == nil {
		t.Fatal("a count larger than the payload was accepted")
	}
	e = Encoder{}
	e.String("abc")
	e.I64(-5)
	d = NewDecoder(e.Buf)
	if d.String() != "abc" || d.I64() != -5 || d.Done() != nil {
		t.Fatal("round trip")
	}
}

func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	good := &File{Dir: dir, Name: "seed"}
	if err := good.Save("linear", 1, []byte("x")); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "seed"))
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, _, err := decode(data, "linear"); err == nil && !bytes.HasPrefix(data, magic[:]) {
			t.Fatal("accepted a file without the magic")
		}
	})
}
