// Package statefile owns the on-disk form of select plugin state: a
// versioned file (magic, format version, plugin kind, save time, payload,
// CRC-32C) written to a temporary file, fsynced and renamed into place with
// the previous copy kept as .old, and read back only when it is whole,
// uncorrupted and of a version this build understands. It also holds the
// small binary encoder and decoder the plugins write their payloads with.
package statefile
