// Package flux owns sift's two Flux front ends: RFC 31 job constraints
// written as JSON (ParseRFC31) and the RFC 35 `--requires` shorthand
// (ParseRequires, RequiresJSON), both producing the shared constraint tree
// of compiler/ast with flux-core's semantics and error messages, and the
// printer that writes a tree back as compact RFC 31 JSON (FormatRFC31).
package flux
