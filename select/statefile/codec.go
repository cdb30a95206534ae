package statefile

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrPayload is a payload that does not decode.
var ErrPayload = errors.New("malformed state payload")

// Encoder appends little-endian values to a payload.
type Encoder struct{ Buf []byte }

// U8 appends a byte.
func (e *Encoder) U8(v uint8) { e.Buf = append(e.Buf, v) }

// U32 appends a 32-bit value.
func (e *Encoder) U32(v uint32) { e.Buf = binary.LittleEndian.AppendUint32(e.Buf, v) }

// U64 appends a 64-bit value.
func (e *Encoder) U64(v uint64) { e.Buf = binary.LittleEndian.AppendUint64(e.Buf, v) }

// I64 appends a signed 64-bit value.
func (e *Encoder) I64(v int64) { e.U64(uint64(v)) }

// String appends a length-prefixed string.
func (e *Encoder) String(s string) {
	e.U32(uint32(len(s)))
	e.Buf = append(e.Buf, s...)
}

// Decoder reads what an Encoder wrote; after the first short read every
// call returns zero and Err reports ErrPayload.
type Decoder struct {
	buf []byte
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Err is the first decoding error.
func (d *Decoder) Err() error { return d.err }

// Done reports an error unless every byte was read.
func (d *Decoder) Done() error {
	if d.err == nil && len(d.buf) != 0 {
		d.err = ErrPayload
	}
	return d.err
}

func (d *Decoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.buf) {
		d.err = ErrPayload
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

// U8 reads a byte.
func (d *Decoder) U8() uint8 {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

// U32 reads a 32-bit value.
func (d *Decoder) U32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// U64 reads a 64-bit value.
func (d *Decoder) U64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// I64 reads a signed 64-bit value.
func (d *Decoder) I64() int64 { return int64(d.U64()) }

// String reads a length-prefixed string.
func (d *Decoder) String() string {
	n := d.U32()
	if n > math.MaxInt32 {
		d.err = ErrPayload
		return ""
	}
	return string(d.take(int(n)))
}

// Count reads a length prefix of items at least size bytes each, refusing
// one the rest of the payload cannot hold.
func (d *Decoder) Count(size int) int {
	n := d.U32()
	if d.err != nil || size <= 0 || uint64(n)*uint64(size) > uint64(len(d.buf)) {
		if n != 0 || d.err != nil {
			d.err = ErrPayload
		}
		return 0
	}
	return int(n)
}
