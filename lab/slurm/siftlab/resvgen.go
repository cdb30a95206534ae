package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"strings"
)

// resvConf is the cluster of the random reservation scenarios: six nodes
// of 4 CPUs (slurmd ports from -port), partition batch of all of them and
// small of n1-n3, backfill every second; SELECT is the select plugin.
const resvConf = `SelectType=SELECT
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,batch_sched_delay=0
%sPartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP
PartitionName=small Nodes=n[1-3] MaxTime=UNLIMITED State=UP
`

// resvgen writes a case file of random advance-reservation scenarios: one
// to three reservations (named nodes or a node count, active now or
// starting within the hour, MAINT, FLEX, IGNORE_JOBS or none) among three
// to seven jobs (some naming a reservation, some in partition small or
// with a node list, some cancelled), then a 3 s step.
func resvgen(args []string) error {
	fs := flag.NewFlagSet("resvgen", flag.ExitOnError)
	n := fs.Int("n", 20, "number of scenarios")
	seed := fs.Int64("seed", 1, "random seed")
	port := fs.Int("port", 21001, "slurmd Port= of n1 (n2 the next, ...)")
	cons := fs.Bool("cons", false, "select/cons_tres (CR_Core) instead of select/linear")
	out := fs.String("out", "", "case file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("resvgen needs -out")
	}
	var nodes strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&nodes, "NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000\n", i, *port+i-1)
	}
	sel := "select/linear"
	if *cons {
		sel = "select/cons_tres\nSelectTypeParameters=CR_Core"
	}
	conf := strings.Replace(fmt.Sprintf(resvConf, nodes.String()), "SELECT", sel, 1)
	rec := &Recording{SlurmConf: conf, RecordedBy: "siftlab resvgen " + strings.Join(args, " ")}
	rng := rand.New(rand.NewSource(*seed))
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	for k := 1; k <= *n; k++ {
		c := Case{Mode: "run-now", Name: fmt.Sprintf("g%d-%02d", *seed, k)}
		var resvs []string
		submitted := 0
		steps := 3 + rng.Intn(5)
		for s := 0; s < steps; s++ {
			if len(resvs) < 3 && (s == 0 || rng.Intn(4) == 0) {
				name := fmt.Sprintf("r%d", len(resvs)+1)
				what := fmt.Sprintf("NodeCnt=%d", 1+rng.Intn(3))
				if rng.Intn(3) > 0 {
					first := 1 + rng.Intn(6)
					last := min(6, first+rng.Intn(3))
					what = fmt.Sprintf("Nodes=n[%d-%d]", first, last)
				}
				args := fmt.Sprintf("ReservationName=%s StartTime=%s Duration=%s %s Users=@USER@", name,
					pick("now", "now", "now+5minutes", "now+15minutes", "now+30minutes", "now+60minutes"), pick("10", "30", "60", "120"), what)
				if f := pick("", "", "", "MAINT", "FLEX", "IGNORE_JOBS"); f != "" {
					args += " Flags=" + f
				}
				resvs = append(resvs, name)
				c.Jobs = append(c.Jobs, Job{Action: "resv:" + args})
				continue
			}
			if submitted > 1 && rng.Intn(8) == 0 {
				c.Jobs = append(c.Jobs, Job{Action: fmt.Sprintf("cancel:%d", 1+rng.Intn(submitted))})
				continue
			}
			var spec []string
			if len(resvs) > 0 && rng.Intn(3) == 0 {
				spec = append(spec, "reservation="+resvs[rng.Intn(len(resvs))])
			}
			nodes := 1 + rng.Intn(3)
			switch rng.Intn(8) {
			case 0:
				spec = append(spec, "partition=small")
			case 1:
				first := 1 + rng.Intn(5)
				spec = append(spec, fmt.Sprintf("nodelist=n[%d-%d]", first, first+1))
				nodes = 2
			}
			if *cons && rng.Intn(2) == 0 {
				spec = append(spec, fmt.Sprintf("ntasks=%d", 1+rng.Intn(8)))
			} else {
				spec = append(spec, fmt.Sprintf("nodes=%d", nodes), "exclusive")
			}
			spec = append(spec, "time="+pick("3", "10", "30", "60", "120"))
			c.Jobs = append(c.Jobs, Job{Spec: strings.Join(spec, ",")})
			submitted++
		}
		c.Jobs = append(c.Jobs, Job{Action: "sleep:3"})
		rec.Cases = append(rec.Cases, c)
	}
	return writeRecording(*out, rec)
}
