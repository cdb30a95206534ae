package compiler

import (
	"slices"
	"testing"
)

func TestLeafInstructionsKeepTheirSourceText(t *testing.T) {
	tests := []struct {
		name string
		lang Lang
		text string
		want []string // the text of every leaf, in any order
	}{
		{"slurm leaves keep their spaces", Slurm, "(a<2 | foo = baz )&zed!=12", []string{"a<2 ", " foo = baz ", "zed!=12"}},
		{"slurm single leaf", Slurm, "a=1.23", []string{"a=1.23"}},
		{"slurm range covers both bounds", Slurm, "a<2&b=1&a>1", []string{"a<2&b=1&a>1", "b=1"}},
		{"flux hostlist and ranks are their objects, properties their strings", Flux,
			`{"and":[{"hostlist":["n[1-5]"]},{"properties":["^debug","gpu"]},{"ranks":["0-3"]}]}`,
			[]string{`{"hostlist":["n[1-5]"]}`, `"^debug"`, `"gpu"`, `{"ranks":["0-3"]}`}},
		{"flux nested not", Flux, `{"not":[{"properties":["ib"]}]}`, []string{`"ib"`}},
		{"requires terms and comma-separated properties", Requires, `host:n[0-3] gpu,ib or -rank:4`,
			[]string{"host:n[0-3]", "gpu", "ib", "rank:4"}},
		{"requires quoted token and held operator", Requires, `"a b" | host: n0`, []string{"a b", "host: n0"}},
		{"requires property glued to a held operator is one range", Requires, `properties: x,y`,
			[]string{"properties: x,y", "properties: x,y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.lang, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for pc := 0; pc < p.Len(); pc++ {
				if s, ok := p.Source(pc); ok {
					got = append(got, tt.text[s.Start:s.End])
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("leaf texts %q, want %q\n%s", got, want, p.Disassemble())
			}
		})
	}
}
