package limits

import (
	"bytes"
	"os"
	"testing"
)

// FuzzReadDump: no input makes the dump reader panic; what it accepts is
// written and read back to the same text.
func FuzzReadDump(f *testing.F) {
	if data, err := os.ReadFile("testdata/cluster.dump"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("Cluster - 'c'\nParent - 'root'\nAccount - 'a':GrpTRES=cpu=4:MaxWall=1-00:00\nParent - 'a'\nUser - 'u':MaxJobs=3\n"))
	f.Add([]byte("QOS - 'q':Flags=DenyOnLimit:MaxTRESPerUser=gres/gpu:a100=2\nCluster - 'c':Comment='x:y'\n"))
	tl, _ := NewTRESList("gres/gpu", "gres/gpu:a100", "license/m")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, _, err := ReadDump("fuzz", data, tl)
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		if err := WriteDump(&a, p); err != nil {
			t.Fatal(err)
		}
		p2, _, err := ReadDump("written", a.Bytes(), tl)
		if err != nil {
			t.Fatalf("written dump does not read back: %v\n%s", err, a.String())
		}
		if err := WriteDump(&b, p2); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Fatalf("round trip differs:\n%s\n---\n%s", a.String(), b.String())
		}
	})
}

// FuzzReadQOSParsable: no input makes the --parsable2 reader panic; what
// it accepts is written and read back.
func FuzzReadQOSParsable(f *testing.F) {
	if data, err := os.ReadFile("testdata/qos.parsable2"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("Name|MaxWall|MaxTRESPU\nq|02:00:00|cpu=8\n"))
	tl, _ := NewTRESList("gres/gpu")
	f.Fuzz(func(t *testing.T, data []byte) {
		p := NewPolicy(tl, "c")
		if _, err := ReadQOSParsable("fuzz", data, p); err != nil {
			return
		}
		var a bytes.Buffer
		if err := WriteQOSParsable(&a, p); err != nil {
			t.Fatal(err)
		}
		p2 := NewPolicy(tl, "c")
		if _, err := ReadQOSParsable("written", a.Bytes(), p2); err != nil {
			t.Fatalf("written QOS do not read back: %v\n%s", err, a.String())
		}
	})
}

// FuzzParseTRES: no TRES string makes the parser panic; what it accepts
// formats to a string that parses to the same vector.
func FuzzParseTRES(f *testing.F) {
	for _, s := range []string{"cpu=8,mem=16G", "1=4,4=2", "gres/gpu:a100=1,license/m=-1", "mem=0.5T", "bb/x=1P"} {
		f.Add(s)
	}
	tl, _ := NewTRESList("gres/gpu", "gres/gpu:a100", "license/m", "bb/x")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := tl.Parse(s)
		if err != nil {
			return
		}
		w, err := tl.Parse(tl.Format(v))
		if err != nil || !v.Equal(w) {
			t.Fatalf("%q: formatted %q reads back as %v, %v", s, tl.Format(v), w, err)
		}
	})
}

// FuzzParseSacctmgrCommands: no command script makes the reader panic.
func FuzzParseSacctmgrCommands(f *testing.F) {
	f.Add([]byte("add qos small MaxTRESPerUser=cpu=8\nadd account lab Description=lab Organization=sift\nadd user @USER@ DefaultAccount=lab Account=lab QOS=normal,small DefaultQOS=small\n"))
	f.Add([]byte("add account a Parent=root GrpJobs=2\nmodify account a set MaxWall=10\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseSacctmgrCommands(data, "c", map[string]string{"@USER@": "u"})
		if err == nil {
			var b bytes.Buffer
			if err := WriteDump(&b, p); err != nil {
				t.Fatal(err)
			}
		}
	})
}
