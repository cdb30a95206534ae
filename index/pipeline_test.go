package index

import (
	"fmt"
	"testing"
)

// Builds of pipelineMin nodes or more read JSON on a second goroutine; these
// tests make sure such builds answer exactly as the oracle does.

func TestPipelinedBuildTypesTrickyDocumentsAsParseExtra(t *testing.T) {
	var small []string // the huge documents are covered by the unpipelined test
	for _, d := range trickyExtra {
		if len(d) < 1024 {
			small = append(small, d)
		}
	}
	docs := make([][]byte, 0, pipelineMin+2*pipelineChunk+17)
	for len(docs) < cap(docs) {
		docs = append(docs, []byte(small[len(docs)%len(small)]))
	}
	checkParity(t, docs)
}

func TestPipelinedBuildMatchesNaive(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		g := newGen(seed)
		nodes := g.nodes(pipelineMin + int(seed)*pipelineChunk/3)
		for i := range nodes {
			switch i % 7 {
			case 0:
				nodes[i].Extra = []byte(trickyExtra[i%len(trickyExtra)])
			case 1:
				nodes[i].Extra = nil
			}
			if seed == 2 {
				nodes[i].Name = fmt.Sprintf("node%d", i+1)
			}
		}
		s, err := Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstNaive(t, g, s, newNaive(ptrs(nodes)), 60)
	}
}
