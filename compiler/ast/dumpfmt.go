package ast

import "strconv"

func strconvQuote(s string) string { return strconv.Quote(s) }

func uitoa(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
