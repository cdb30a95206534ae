package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
)

// gen writes a case file of random select cases for the nodes of a
// slurm.conf fragment: each case submits one to three jobs and, at times,
// asks a will-run question (test-only:) last. Scheduling generators (time
// steps, cancels, accounting) extend this the same way: they emit Jobs with
// Action steps and set Sdiag/Sprio/Sshare.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	confPath := fs.String("conf", "", "slurm.conf fragment (SelectType, NodeName, PartitionName lines)")
	gresPath := fs.String("gres", "", "gres.conf, optional")
	n := fs.Int("n", 20, "number of cases")
	seed := fs.Int64("seed", 1, "random seed")
	out := fs.String("out", "", "case file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *confPath == "" || *out == "" {
		return errors.New("gen needs -conf and -out")
	}
	conf, err := os.ReadFile(*confPath)
	if err != nil {
		return err
	}
	rec := &Recording{SlurmConf: string(conf), RecordedBy: "siftlab gen " + strings.Join(args, " ")}
	if *gresPath != "" {
		g, err := os.ReadFile(*gresPath)
		if err != nil {
			return err
		}
		rec.GresConf = string(g)
	}
	maxNodes := len(nodeThreads(rec.SlurmConf))
	if maxNodes == 0 {
		return errors.New("gen: no NodeName lines in " + *confPath)
	}
	rng := rand.New(rand.NewSource(*seed))
	seen := map[string]bool{}
	for len(rec.Cases) < *n {
		c := Case{Mode: "run-now"}
		jobs := 1 + rng.Intn(3)
		var names []string
		for k := 0; k < jobs; k++ {
			spec := randomSpec(rng, maxNodes)
			if k == jobs-1 && rng.Intn(4) == 0 {
				spec = "test-only:" + spec
			}
			names = append(names, spec)
			c.Jobs = append(c.Jobs, Job{Spec: spec})
		}
		c.Name = strings.Join(names, " ; ")
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		rec.Cases = append(rec.Cases, c)
	}
	return writeRecording(*out, rec)
}

// randomSpec draws one job: node count, tasks, CPUs per task, memory and
// at times exclusive, in the spec syntax sift select and the replay share.
func randomSpec(rng *rand.Rand, maxNodes int) string {
	var p []string
	if rng.Intn(2) == 0 {
		lo := 1 + rng.Intn(min(maxNodes, 3))
		if rng.Intn(4) == 0 && lo < maxNodes {
			p = append(p, fmt.Sprintf("nodes=%d-%d", lo, lo+1))
		} else {
			p = append(p, fmt.Sprintf("nodes=%d", lo))
		}
	}
	p = append(p, fmt.Sprintf("ntasks=%d", 1+rng.Intn(24)))
	if rng.Intn(3) == 0 {
		p = append(p, fmt.Sprintf("cpus-per-task=%d", 1+rng.Intn(4)))
	}
	switch rng.Intn(3) {
	case 0:
		p = append(p, fmt.Sprintf("mem=%d", 1000*(1+rng.Intn(32))))
	case 1:
		p = append(p, fmt.Sprintf("mem-per-cpu=%d", 500*(1+rng.Intn(8))))
	}
	if rng.Intn(6) == 0 {
		p = append(p, "exclusive")
	}
	return strings.Join(p, ",")
}
