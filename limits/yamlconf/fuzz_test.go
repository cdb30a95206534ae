package yamlconf

import (
	"os"
	"testing"
)

// FuzzRead: any input either reads or fails with an *Error whose offset
// lies in the input; never a panic.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile("testdata/cluster.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("cluster: c\naccounts:\n  a:\n    GrpTRES: cpu=8\n    users:\n      u: {DefaultAccount: true, MaxJobs: 2, partitions: {gpu: {MaxJobs: 1}}}\n"))
	f.Add([]byte("cluster: c\nqos:\n  q: {Flags: [DenyOnLimit], MaxTRESPerUser: cpu=4}\nroot: {QOS: [normal, q]}\n"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	f.Add([]byte("cluster: c\naccounts: {a: {accounts: {b: {accounts: {c: null}}}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := Read("f.yaml", data, nil)
		if e, ok := err.(*Error); ok && (e.Offset < 0 || e.Offset > len(data)) {
			t.Fatalf("offset %d outside the input (%d bytes): %v", e.Offset, len(data), err)
		}
	})
}
