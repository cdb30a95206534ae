// Package position owns byte positions in the texts sift reads: Error, the
// one error type that points at a byte of its input (every parser returns it
// or embeds it), Positioned, the interface any such error satisfies, and
// Excerpt, which shows the bytes around a position with a caret under it.
// It is a leaf: it imports only the standard library, so every parser and
// every embedder can use it, as go/scanner's Error serves every Go tool.
package position
