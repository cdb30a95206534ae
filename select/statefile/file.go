package statefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
)

// magic starts every sift select state file.
var magic = [8]byte{'S', 'I', 'F', 'T', 'S', 'E', 'L', 0}

// Version is the format version this build writes and the newest it reads.
const Version uint16 = 1

// maxPayload bounds what Load reads, so a damaged length cannot make it
// allocate without bound.
const maxPayload = 1 << 32

// tempInfix joins a state file's name and the random suffix of a writer's
// temporary file.
const tempInfix = ".new-"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Reasons a state file is refused; a *FileError matches one with errors.Is.
var (
	ErrCorrupt   = errors.New("checksum mismatch")
	ErrTruncated = errors.New("file is truncated")
	ErrNewer     = errors.New("written by a newer format version")
	ErrNotState  = errors.New("not a sift select state file")
	ErrKind      = errors.New("state of another select plugin")
)

// FileError is a state file that was refused.
type FileError struct {
	Path string
	Err  error
}

// Error names the file and why it was refused.
func (e *FileError) Error() string { return fmt.Sprintf("state file %s: %v", e.Path, e.Err) }

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// File is one named state file in a directory.
type File struct {
	// Dir and Name locate the file; Name+".new" and Name+".old" sit beside.
	Dir, Name string
	// hook, if set, is called at each step of Save ("written", "synced",
	// "old-kept"); an error aborts Save there, as a crash would.
	hook func(step string) error
}

func (f *File) path(suffix string) string { return filepath.Join(f.Dir, f.Name+suffix) }

func (f *File) step(s string) error {
	if f.hook != nil {
		return f.hook(s)
	}
	return nil
}

// Save writes payload as the state of plugin kind at time now (Unix
// seconds): to Name.new, fsynced, then the current file becomes Name.old and
// Name.new becomes Name. It creates Dir if needed.
func (f *File) Save(kind string, now int64, payload []byte) error {
	var b bytes.Buffer
	b.Write(magic[:])
	var hdr [2 + 2 + 8]byte
	binary.LittleEndian.PutUint16(hdr[0:], Version)
	binary.LittleEndian.PutUint16(hdr[2:], uint16(len(kind)))
	binary.LittleEndian.PutUint64(hdr[4:], uint64(now))
	b.Write(hdr[:])
	b.WriteString(kind)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(payload)))
	b.Write(n[:])
	b.Write(payload)
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(b.Bytes(), castagnoli))
	b.Write(sum[:])

	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	// Each writer its own temporary file, so two writers never rename
	// each other's.
	w, err := os.CreateTemp(f.Dir, f.Name+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		w.Close()
		return fmt.Errorf("state file: %w", err)
	}
	if err := f.step("written"); err != nil {
		w.Close()
		return err
	}
	if err := w.Sync(); err != nil {
		w.Close()
		return fmt.Errorf("state file: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	if err := f.step("synced"); err != nil {
		return err
	}
	cur := f.path("")
	if err := os.Rename(cur, f.path(".old")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state file: %w", err)
	}
	if err := f.step("old-kept"); err != nil {
		return err
	}
	if err := os.Rename(w.Name(), cur); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	if d, err := os.Open(f.Dir); err == nil {
		// Make the renames durable; not every file system supports it.
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Load returns the payload and save time of the state of plugin kind. It
// reads Name, or Name.old when Name is missing (a save stopped between its
// two renames). It reports fs.ErrNotExist when neither exists.
func (f *File) Load(kind string) (payload []byte, saved int64, err error) {
	p := f.path("")
	data, err := readBounded(p)
	if errors.Is(err, fs.ErrNotExist) {
		p = f.path(".old")
		data, err = readBounded(p)
	}
	if err != nil {
		return nil, 0, err
	}
	payload, saved, err = decode(data, kind)
	if err != nil {
		return nil, 0, &FileError{Path: p, Err: err}
	}
	return payload, saved, nil
}

func readBounded(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxPayload+64*1024 {
		return nil, &FileError{Path: p, Err: fmt.Errorf("%d bytes is too large", st.Size())}
	}
	return os.ReadFile(p)
}

func decode(data []byte, kind string) ([]byte, int64, error) {
	if len(data) < len(magic) {
		if bytes.HasPrefix(magic[:], data) {
			return nil, 0, ErrTruncated
		}
		return nil, 0, ErrNotState
	}
	if !bytes.Equal(data[:len(magic)], magic[:]) {
		return nil, 0, ErrNotState
	}
	rest := data[len(magic):]
	if len(rest) < 12 {
		return nil, 0, ErrTruncated
	}
	version := binary.LittleEndian.Uint16(rest[0:])
	if version > Version {
		return nil, 0, fmt.Errorf("%w (version %d, this build reads up to %d)", ErrNewer, version, Version)
	}
	if version == 0 {
		return nil, 0, fmt.Errorf("%w: version 0", ErrNotState)
	}
	klen := int(binary.LittleEndian.Uint16(rest[2:]))
	saved := int64(binary.LittleEndian.Uint64(rest[4:]))
	rest = rest[12:]
	if len(rest) < klen+8 {
		return nil, 0, ErrTruncated
	}
	k := string(rest[:klen])
	plen := binary.LittleEndian.Uint64(rest[klen:])
	rest = rest[klen+8:]
	if plen > uint64(len(rest)) || uint64(len(rest))-plen < 4 {
		return nil, 0, ErrTruncated
	}
	body := data[:len(data)-len(rest)+int(plen)]
	sum := binary.LittleEndian.Uint32(rest[plen:])
	if uint64(len(rest)) != plen+4 {
		return nil, 0, fmt.Errorf("%w: %d bytes after the checksum", ErrCorrupt, uint64(len(rest))-plen-4)
	}
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, 0, ErrCorrupt
	}
	if k != kind {
		return nil, 0, fmt.Errorf("%w: file holds %q, want %q", ErrKind, k, kind)
	}
	return rest[:plen], saved, nil
}
