package hostlist

import (
	"strconv"
	"testing"
)

func BenchmarkFind(b *testing.B) {
	for _, hosts := range []int{10, 1000000} {
		l, err := Parse(Flux, "node[0-"+strconv.Itoa(hosts-1)+"]")
		if err != nil {
			b.Fatal(err)
		}
		b.Run("hosts="+strconv.Itoa(hosts), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if l.Find("node5") != 5 {
					b.Fatal("not found")
				}
			}
		})
	}
}

func BenchmarkQueries(b *testing.B) {
	for _, hosts := range []int{10, 1000000} {
		l, err := Parse(Flux, "node[0-"+strconv.Itoa(hosts-1)+"]")
		if err != nil {
			b.Fatal(err)
		}
		b.Run("hosts="+strconv.Itoa(hosts), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = l.Queries()
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	inputs := map[string]string{
		"range":   "node[0001-1000]",
		"mixed":   "rack[1-4]n[01-32],login1,login2,gpu[001-064]-ib",
		"plain10": "n1,n2,n3,n5,n8,n13,n21,n34,n55,n89",
	}
	for _, d := range []Dialect{Flux, Slurm} {
		for name, in := range inputs {
			b.Run("dialect="+d.String()+"/in="+name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := Parse(d, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkCompress(b *testing.B) {
	for _, n := range []int{100, 10000} {
		names := make([]string, n)
		for i := range names {
			names[i] = "node" + strconv.Itoa(i*2/3)
		}
		b.Run("hosts="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = Compress(Slurm, names)
			}
		})
	}
}
