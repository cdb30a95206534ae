// Command tablev rebuilds the FCFS columns of RLScheduler's Table V (Zhang
// et al., SC'20) with package hpcsim: for each SWF trace given, the mean
// bounded slowdown of FCFS without and with the method's backfilling over
// the method's sampled sequences. See BENCHMARKS.md, "Published
// comparison: RLScheduler's Table V".
//
//	go run ./hpcsim/internal/cmd/tablev [-seed 1] [-sequences 10] [-length 1024] [-slice 10000] [-per] TRACE.swf[.gz]...
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nodesift/sift/hpcsim"
)

func main() {
	m := hpcsim.TableVMethod
	flag.Uint64Var(&m.Seed, "seed", m.Seed, "seed of the sequence draws (gym-seeded numpy RandomState)")
	flag.IntVar(&m.Sequences, "sequences", m.Sequences, "how many sequences")
	flag.IntVar(&m.Length, "length", m.Length, "jobs in a sequence")
	flag.IntVar(&m.Slice, "slice", m.Slice, "draw sequences from the first N jobs (0: all)")
	per := flag.Bool("per", false, "also print every sequence's result")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: tablev [flags] TRACE.swf[.gz]...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	fmt.Printf("Method: seed %d, %d sequences of %d jobs from the first %d jobs; mean over sequences of each sequence's mean bsld = max(1, (wait+run)/max(run, 10)).\n\n",
		m.Seed, m.Sequences, m.Length, m.Slice)
	fmt.Println("| trace | jobs loaded | machine | FCFS | FCFS + their backfilling |")
	fmt.Println("|---|---|---|---|---|")
	var details strings.Builder
	for _, path := range flag.Args() {
		w, err := load(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tablev:", err)
			os.Exit(1)
		}
		row, err := hpcsim.Table(w, m)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tablev: %s: %v\n", path, err)
			os.Exit(1)
		}
		name := filepath.Base(path)
		fmt.Printf("| %s | %d | %d nodes × %g CPUs | %.2f | %.2f |\n", name, len(w.Jobs), w.Nodes, w.ProcsPerNode, row.FCFS, row.Backfill)
		if *per {
			fmt.Fprintf(&details, "\n%s:\n\n| start | FCFS bsld | FCFS wait (s) | backfill bsld | backfill wait (s) | backfilled |\n|---|---|---|---|---|---|\n", name)
			for i, s := range row.Starts {
				a, b := row.PerFCFS[i], row.PerBackfill[i]
				fmt.Fprintf(&details, "| %d | %.2f | %.0f | %.2f | %.0f | %d |\n", s, a.MeanBSLD, a.MeanWait, b.MeanBSLD, b.MeanWait, b.Backfilled)
			}
		}
	}
	fmt.Print(details.String())
}

func load(path string) (*hpcsim.Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return hpcsim.Load(f, path)
}
