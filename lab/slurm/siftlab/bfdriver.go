package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nodesift/sift/lab/slurm/bfdriver"
)

// bfrecord runs the driver over hand-written cases (-in) and -n random
// ones and writes the compact recording read by sched's
// TestSlurmBackfillDriver.
func bfrecord(args []string) error {
	fs := flag.NewFlagSet("bfrecord", flag.ExitOnError)
	driver := fs.String("driver", "", "the backfill-test binary build.sh made")
	plugins := fs.String("plugins", "", "Slurm build tree's src/plugins (PluginDir of the driver's slurm.conf)")
	in := fs.String("in", "", "hand-written cases (comma-separated files, recording format without r lines)")
	n := fs.Int("n", 0, "random cases")
	seed := fs.Int64("seed", 1, "random seed")
	out := fs.String("out", "", "recording to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *driver == "" || *plugins == "" || *out == "" {
		return errors.New("bfrecord needs -driver, -plugins and -out")
	}
	var cases []*bfdriver.Case
	if *in != "" {
		for _, p := range strings.Split(*in, ",") {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			cs, err := bfdriver.Read(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			cases = append(cases, cs...)
		}
	}
	rng := rand.New(rand.NewSource(*seed))
	for i := 0; i < *n; i++ {
		cases = append(cases, bfdriver.Generate(rng, fmt.Sprintf("random-%d-%04d", *seed, i+1)))
	}
	dir, err := os.MkdirTemp("", "bfrecord")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for i, c := range cases {
		if err := runBFDriver(*driver, *plugins, dir, c); err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
		if (i+1)%200 == 0 {
			fmt.Fprintf(os.Stderr, "bfrecord: %d/%d\n", i+1, len(cases))
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# Slurm's backfill driver (testsuite/slurm_unit/backfill) on its inputs, recorded by\n# siftlab bfrecord %s\n", strings.Join(args, " "))
	bfdriver.Write(w, cases)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runBFDriver writes c's slurm.conf and job lines under dir and runs the
// driver on them with its clock at c.Now.
func runBFDriver(driver, plugins, dir string, c *bfdriver.Case) error {
	var pd []string
	for _, p := range []string{"select/cons_tres", "topology/flat", "hash/k12", "tls/none", "cred/munge", "certgen/script", "auth/none"} {
		pd = append(pd, filepath.Join(plugins, p, ".libs"))
	}
	conf := fmt.Sprintf("ClusterName=test\nSlurmctldHost=localhost\nAuthType=\"\"\nPluginDir=%s\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nNodeName=node[01-%02d] NodeAddr=localhost RealMemory=2000 CoresPerSocket=4\n",
		strings.Join(pd, ":"), c.Nodes)
	if c.Params != "" {
		conf += "SchedulerParameters=" + c.Params + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "slurm.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	jobs := filepath.Join(dir, "jobs.txt")
	if err := os.WriteFile(jobs, []byte(strings.Join(c.Jobs, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(driver, "-c", dir, "-t", jobs)
	cmd.Env = append(os.Environ(), "BFDRIVER_NOW="+strconv.FormatInt(c.Now, 10))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w: %s", err, tail(stderr.String(), 400))
	}
	c.Out = strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(c.Out) != len(c.Jobs) {
		return fmt.Errorf("driver printed %d lines for %d jobs: %s", len(c.Out), len(c.Jobs), tail(stderr.String(), 400))
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
