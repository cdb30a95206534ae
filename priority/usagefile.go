package priority

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/nodesift/sift/position"
)

// UsageFileError is a usage file that cannot be read; Offset is the byte
// where the offending field starts.
type UsageFileError struct {
	position.Pos
	Line int
	Msg  string
}

func (e *UsageFileError) Error() string {
	return fmt.Sprintf("usage file, line %d (byte %d): %s", e.Line, e.Offset, e.Msg)
}

// ReadSshareUsage sets the raw usage of the tree's associations from
// `sshare -a -P` output (any of its formats with the Account and RawUsage
// columns; User and Partition are used when present): each row's RawUsage
// becomes its association's. Rows naming an association the tree does
// not have are skipped and returned, as "account" or "account/user"
// (slurmctld keeps deleted associations' usage in root).
func ReadSshareUsage(data []byte, s *Shares) (skipped []string, err error) {
	off := 0
	col := map[string]int{}
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		start := off
		off += len(l) + 1
		text := strings.TrimRight(string(l), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(text, "|")
		if len(col) == 0 {
			for i, f := range fields {
				col[strings.ToLower(strings.TrimSpace(f))] = i
			}
			if _, ok := col["account"]; !ok {
				return nil, &UsageFileError{Pos: position.Pos{Offset: start}, Line: line, Msg: "no Account column in the header (expected sshare -a -P output)"}
			}
			if _, ok := col["rawusage"]; !ok {
				return nil, &UsageFileError{Pos: position.Pos{Offset: start}, Line: line, Msg: "no RawUsage column in the header"}
			}
			continue
		}
		field := func(name string) (string, int) {
			i, ok := col[name]
			if !ok || i >= len(fields) {
				return "", start + len(text)
			}
			fo := start
			for _, f := range fields[:i] {
				fo += len(f) + 1
			}
			return fields[i], fo
		}
		acct, _ := field("account")
		acct = strings.TrimSpace(acct)
		user, _ := field("user")
		part, _ := field("partition")
		rawText, rawOff := field("rawusage")
		raw, perr := strconv.ParseFloat(strings.TrimSpace(rawText), 64)
		if perr != nil || raw < 0 {
			return skipped, &UsageFileError{Pos: position.Pos{Offset: rawOff}, Line: line,
				Msg: fmt.Sprintf("RawUsage %q: expected a non-negative number", position.Clip(rawText))}
		}
		var n *Node
		switch {
		case user != "":
			n = s.Node(s.policy.User(user, acct, part))
			if n != nil && (n.Assoc.Account != acct || n.Assoc.Partition != part) {
				n = nil
			}
		case acct == "root":
			n = s.Root
		default:
			n = s.Node(s.policy.Account(acct))
		}
		if n == nil {
			name := acct
			if user != "" {
				name += "/" + user
			}
			skipped = append(skipped, name)
			continue
		}
		n.UsageRaw = raw
	}
	if len(col) == 0 {
		return nil, &UsageFileError{Pos: position.Pos{Offset: 0}, Line: 1, Msg: "empty usage file"}
	}
	return skipped, nil
}
