// Command tablev rebuilds the FCFS columns of RLScheduler's Table V (Zhang
// et al., SC'20) with package hpcsim, and sets sift's replay of Slurm's
// backfill (package sim) beside them on the same job sequences: for each
// SWF trace given, the mean bounded slowdown of FCFS without and with the
// method's backfilling, and with Slurm's, over the method's sampled
// sequences. See BENCHMARKS.md, "Published comparison: RLScheduler's Table
// V".
//
//	go run ./hpcsim/internal/cmd/tablev [-seed 1] [-sequences 10] [-length 1024] [-slice 10000] [-slurm=true] [-per] TRACE.swf[.gz]...
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nodesift/sift/hpcsim"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/sim"
)

func main() {
	m := hpcsim.TableVMethod
	flag.Uint64Var(&m.Seed, "seed", m.Seed, "seed of the sequence draws (gym-seeded numpy RandomState)")
	flag.IntVar(&m.Sequences, "sequences", m.Sequences, "how many sequences")
	flag.IntVar(&m.Length, "length", m.Length, "jobs in a sequence")
	flag.IntVar(&m.Slice, "slice", m.Slice, "draw sequences from the first N jobs (0: all)")
	slurm := flag.Bool("slurm", true, "add the columns of sift's replay of Slurm (package sim): FIFO, and backfill (slower)")
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
	head := "| trace | jobs loaded | machine | FCFS | FCFS + their backfilling |"
	rule := "|---|---|---|---|---|"
	if *slurm {
		head += " sift sim fifo | sift sim backfill (Slurm's) |"
		rule += "---|---|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	var details strings.Builder
	for _, path := range flag.Args() {
		w, err := load(path)
		if err != nil {
			fail(err)
		}
		row, err := hpcsim.Table(w, m)
		if err != nil {
			fail(fmt.Errorf("%s: %w", path, err))
		}
		var fifo, sl []hpcsim.Result
		if *slurm {
			if fifo, err = slurmReplay(w, row.Starts, m.Length, sim.FIFO, sched.DefaultConfig()); err != nil {
				fail(fmt.Errorf("%s: %w", path, err))
			}
			if sl, err = slurmReplay(w, row.Starts, m.Length, sim.Backfill, sched.DefaultConfig()); err != nil {
				fail(fmt.Errorf("%s: %w", path, err))
			}
		}
		name := filepath.Base(path)
		fmt.Printf("| %s | %d | %d nodes × %g CPUs | %.2f | %.2f |", name, len(w.Jobs), w.Nodes, w.ProcsPerNode, row.FCFS, row.Backfill)
		if *slurm {
			fmt.Printf(" %.2f | %.2f |", meanBSLD(fifo), meanBSLD(sl))
		}
		fmt.Println()
		if *per {
			fmt.Fprintf(&details, "\n%s (bsld, mean wait in s, jobs backfilled):\n\n| start | FCFS | their backfilling |", name)
			if *slurm {
				details.WriteString(" sift sim fifo | sift sim backfill |")
			}
			details.WriteString("\n|---|---|---|")
			if *slurm {
				details.WriteString("---|---|")
			}
			details.WriteString("\n")
			for i, s := range row.Starts {
				a, b := row.PerFCFS[i], row.PerBackfill[i]
				fmt.Fprintf(&details, "| %d | %.2f, %.0f | %.2f, %.0f, %d |", s, a.MeanBSLD, a.MeanWait, b.MeanBSLD, b.MeanWait, b.Backfilled)
				if *slurm {
					fmt.Fprintf(&details, " %.2f, %.0f | %.2f, %.0f, %d |", fifo[i].MeanBSLD, fifo[i].MeanWait, sl[i].MeanBSLD, sl[i].MeanWait, sl[i].Backfilled)
				}
				details.WriteString("\n")
			}
		}
	}
	fmt.Print(details.String())
}

func meanBSLD(rs []hpcsim.Result) float64 {
	mean := 0.0
	for _, r := range rs {
		mean += r.MeanBSLD / float64(len(rs))
	}
	return mean
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tablev:", err)
	os.Exit(1)
}

func load(path string) (*hpcsim.Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return hpcsim.Load(f, path)
}
