package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// lab drives the running loopback cluster through Slurm's commands.
type lab struct {
	dir     string // lab/slurm, where start.sh lives
	threads map[string]int
	nodes   int
	// backfill is SchedulerType=sched/backfill; ctldLog is slurmctld's
	// log, which scheduling cases read (sched.go).
	backfill bool
	ctldLog  string
	// events: scheduling cases keep slurmctld's log events (record
	// -events, which runs slurmctld at debug2).
	events bool
}

func (l *lab) cmd(name string, args ...string) (string, string, error) {
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), "SLURM_TIME_FORMAT=%s")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	return out.String(), errb.String(), err
}

func record(args []string) error {
	fs := flag.NewFlagSet("record", flag.ExitOnError)
	in := fs.String("in", "", "case file or earlier recording")
	out := fs.String("out", "", "recording to write")
	frac := fs.Float64("frac", 1, "record this fraction of the cases (seeded per file)")
	seed := fs.Int64("seed", 1, "seed of the sample")
	labDir := fs.String("lab", "lab/slurm", "directory of start.sh")
	portBase := fs.Int("port-base", 0, "renumber the nodes' Port= from this base + 1, in slurm.conf order (0: keep)")
	only := fs.String("cases", "", "record only these cases (names, comma-separated)")
	events := fs.Bool("events", false, "keep, per scheduling case, slurmctld's log events (SlurmctldDebug=debug2)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return errors.New("record needs -in and -out")
	}
	rec, err := readRecording(*in)
	if err != nil {
		return err
	}
	rec.Cases = sample(rec.Cases, filepath.Base(*in), *frac, *seed)
	if *only != "" {
		names := strings.Split(*only, ",")
		rec.Cases = slices.DeleteFunc(rec.Cases, func(c Case) bool { return !slices.Contains(names, c.Name) })
	}
	if *portBase > 0 {
		rec.SlurmConf = renumberPorts(rec.SlurmConf, *portBase)
	}
	run := usePrefix()
	l := &lab{dir: *labDir, threads: nodeThreads(rec.SlurmConf), ctldLog: filepath.Join(run, "log", "slurmctld.log")}
	conf := rec.SlurmConf
	if *events {
		l.events = true
		conf += "\nSlurmctldDebug=debug2\n"
	}
	if hasScheduleCases(rec) && strings.Contains(conf, "SchedulerType=sched/backfill") {
		l.backfill = true
		if !strings.Contains(conf, "DebugFlags=") {
			// The release waits for a backfill cycle's log line.
			conf += "\nDebugFlags=Backfill\n"
		}
	}
	if err := l.start(rec, conf); err != nil {
		return err
	}
	ver, _, err := l.cmd("sinfo", "-V")
	if err != nil {
		return fmt.Errorf("sinfo -V: %w", err)
	}
	rec.SlurmVersion = strings.TrimSpace(ver)
	rec.SlurmCommit = os.Getenv("SLURM_COMMIT")
	rec.LabScript = "lab/slurm/start.sh"
	rec.RecordedBy = "siftlab record " + strings.Join(args, " ")
	for i := range rec.Cases {
		if err := l.runCase(&rec.Cases[i]); err != nil {
			return fmt.Errorf("case %q: %w", rec.Cases[i].Name, err)
		}
	}
	l.clearResvs()
	if err := l.clear(); err != nil {
		return err
	}
	return writeRecording(*out, rec)
}

// usePrefix puts the lab's Slurm (SLURM_PREFIX, as in env.sh) first on
// PATH and points the commands at the lab's slurm.conf; it returns the
// lab's run directory (LAB_RUN).
func usePrefix() string {
	prefix := os.Getenv("SLURM_PREFIX")
	if prefix == "" {
		home, _ := os.UserHomeDir()
		prefix = filepath.Join(home, ".cache", "sift-lab", "slurm")
	}
	os.Setenv("PATH", filepath.Join(prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := os.Getenv("LAB_RUN")
	if run == "" {
		run = filepath.Join(os.TempDir(), "sift-lab-"+currentUser())
	}
	os.Setenv("SLURM_CONF", filepath.Join(run, "etc", "slurm.conf"))
	return run
}

func hasScheduleCases(rec *Recording) bool {
	for _, c := range rec.Cases {
		if c.Mode == "schedule" {
			return true
		}
	}
	return false
}

// sample keeps each case with probability frac, drawn from a generator
// seeded by the file's name and seed, so a sample is reproducible.
func sample(cases []Case, file string, frac float64, seed int64) []Case {
	if frac >= 1 {
		return cases
	}
	h := fnv.New64a()
	h.Write([]byte(file))
	rng := rand.New(rand.NewSource(int64(h.Sum64()) ^ seed))
	var kept []Case
	for _, c := range cases {
		if rng.Float64() < frac {
			kept = append(kept, c)
		}
	}
	return kept
}

// start writes conf (the recording's slurm.conf, with what the recorder
// adds) and the recording's gres.conf where start.sh reads them and starts
// the cluster (with slurmdbd when it has accounts).
func (l *lab) start(rec *Recording, conf string) error {
	tmp, err := os.MkdirTemp("", "siftlab")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	confPath := filepath.Join(tmp, "slurm.conf")
	args := []string{"--conf", confPath}
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return err
	}
	if rec.GresConf != "" {
		g := filepath.Join(tmp, "gres.conf")
		if err := os.WriteFile(g, []byte(rec.GresConf), 0o644); err != nil {
			return err
		}
		args = append(args, "--gres", g)
	}
	if rec.Sacctmgr != "" {
		s := filepath.Join(tmp, "accounts.sacctmgr")
		if err := os.WriteFile(s, []byte(rec.Sacctmgr), 0o644); err != nil {
			return err
		}
		args = append(args, "--sacctmgr", s)
	}
	c := exec.Command(filepath.Join(l.dir, "start.sh"), args...)
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("start.sh: %w", err)
	}
	l.nodes = len(l.threads)
	return nil
}

// clear cancels every job and waits for all nodes to be idle again.
func (l *lab) clear() error {
	_, _, _ = l.cmd("scancel", "--full", "-u", currentUser())
	for range 600 {
		q, _, _ := l.cmd("squeue", "-h", "-o", "%i")
		s, _, _ := l.cmd("sinfo", "-h", "-N", "-t", "idle", "-o", "%N")
		if strings.TrimSpace(q) == "" && len(strings.Fields(s)) >= l.nodes {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("cluster did not drain")
}

func currentUser() string {
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		return "root"
	}
	return strings.TrimSpace(string(out))
}

func (l *lab) runCase(c *Case) error {
	l.clearResvs()
	if c.Mode == "schedule" {
		return l.runSchedCase(c)
	}
	if err := l.clear(); err != nil {
		return err
	}
	if l.events {
		// A step case's events run from its first step to its end.
		off := l.logSize()
		c.Released = time.Now().Unix()
		defer func() { c.Events = l.readEvents(off, c.Released, false) }()
	}
	var ids []string
	for i := range c.Jobs {
		j := &c.Jobs[i]
		switch {
		case strings.HasPrefix(j.Action, "cancel:"):
			n, err := strconv.Atoi(strings.TrimPrefix(j.Action, "cancel:"))
			if err != nil || n < 1 || n > len(ids) {
				return fmt.Errorf("bad action %q", j.Action)
			}
			if ids[n-1] == "" {
				continue // sbatch refused that submission: nothing to cancel
			}
			_, _, _ = l.cmd("scancel", ids[n-1])
			time.Sleep(300 * time.Millisecond)
			continue
		case j.Action == "snapshot":
			// Every job so far as Slurm shows it now.
			for _, id := range ids {
				if id != "" {
					j.Snapshot = append(j.Snapshot, l.show(id))
				}
			}
			continue
		case strings.HasPrefix(j.Action, "resv:"):
			l.createResv(j)
			continue
		case strings.HasPrefix(j.Action, "sleep:"):
			s, err := strconv.ParseFloat(strings.TrimPrefix(j.Action, "sleep:"), 64)
			if err != nil {
				return fmt.Errorf("bad action %q", j.Action)
			}
			time.Sleep(time.Duration(s * float64(time.Second)))
			continue
		}
		spec, testOnly := j.Spec, c.Mode == "test-only"
		if rest, ok := strings.CutPrefix(spec, "test-only:"); ok {
			spec, testOnly = rest, true
		}
		sb := j.Sbatch
		if len(sb) == 0 {
			sb = sbatchArgs(spec)
		}
		common := []string{"--chdir=" + os.TempDir(), "--output=/dev/null"}
		if !slices.ContainsFunc(sb, func(a string) bool { return strings.HasPrefix(a, "--wrap=") }) {
			// A step may give its own script (one that ignores SIGTERM,
			// to outlive a preemption grace time).
			common = append(common, "--wrap=sleep 100000")
		}
		if testOnly {
			asked := time.Now().Unix()
			_, errs, err := l.cmd("sbatch", append(append([]string{"--test-only"}, sb...), common...)...)
			j.Slurm = parseTestOnly(errs, err != nil)
			// Every will-run answer keeps when it was asked: the replay
			// reads a start within 2 s of it as "starts now".
			j.Slurm.AskedEpoch = asked
			continue
		}
		out, errs, err := l.cmd("sbatch", append(append([]string{"--parsable"}, sb...), common...)...)
		if err != nil {
			j.Slurm = Outcome{State: "REJECTED", Error: strings.TrimSpace(errs)}
			// cancel:N counts submissions, refused ones included, as
			// the replay does.
			ids = append(ids, "")
			continue
		}
		id := strings.TrimSpace(strings.Split(out, ";")[0])
		ids = append(ids, id)
		j.Slurm = l.settle(id)
		if j.Slurm.State == "PENDING" && !scheduling(c) {
			// A select case asks where each job would go beside the
			// running ones; a pending job left in the queue would hold
			// every later job back (reason Priority) under sched/builtin.
			_, _, _ = l.cmd("scancel", id)
		}
	}
	if len(ids) > 0 && (c.Sdiag || c.Sprio || c.Sshare || hasActions(c)) {
		a := &After{}
		for _, id := range ids {
			if id != "" {
				a.Jobs = append(a.Jobs, l.show(id))
			}
		}
		if c.Sdiag {
			out, _, _ := l.cmd("sdiag")
			a.Sdiag = parseSdiag(out)
		}
		if c.Sprio {
			out, _, _ := l.cmd("sprio", "-h", "-l")
			a.Sprio = lines(out)
		}
		if c.Sshare {
			out, _, _ := l.cmd("sshare", "-h", "-a", "-l", "-P")
			a.Sshare = lines(out)
		}
		c.After = a
	}
	return nil
}

// scheduling reports whether a case is about the queue (time steps,
// cancels, reports), so its pending jobs stay queued.
func scheduling(c *Case) bool {
	return c.Sdiag || c.Sprio || c.Sshare || hasActions(c)
}

func hasActions(c *Case) bool {
	for _, j := range c.Jobs {
		if j.Action != "" {
			return true
		}
	}
	return false
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// settle waits until slurmctld has decided on a new job (it runs, or
// pends for a reason other than None) and reads it.
func (l *lab) settle(id string) Outcome {
	var o Outcome
	for range 50 {
		o = l.show(id)
		if o.State != "PENDING" || (o.Reason != "None" && o.Reason != "") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return o
}

// show reads a job, with squeue --start's estimate when it pends.
func (l *lab) show(id string) Outcome {
	out, _, _ := l.cmd("scontrol", "-d", "show", "job", id)
	o := parseJob(out, l.threads)
	for try := 0; o.State == "" && try < 10; try++ {
		// slurmctld busy with a preemption may not answer at once.
		time.Sleep(200 * time.Millisecond)
		out, _, _ = l.cmd("scontrol", "-d", "show", "job", id)
		o = parseJob(out, l.threads)
	}
	if o.State == "PENDING" {
		s, _, _ := l.cmd("squeue", "-h", "--start", "-j", id, "-o", "%S|%Y")
		start, nodes, _ := strings.Cut(strings.TrimSpace(s), "|")
		o.SqueueStart, _ = strconv.ParseInt(start, 10, 64)
		if nodes != "(null)" {
			o.SqueueNodes = nodes
		}
	}
	return o
}

// renumberPorts gives the i-th NodeName line Port=base+i, so that a case
// file runs in a lab whose slurmd ports start elsewhere.
func renumberPorts(conf string, base int) string {
	lines := strings.Split(conf, "\n")
	i := 0
	for k, line := range lines {
		if !strings.HasPrefix(line, "NodeName=") {
			continue
		}
		i++
		f := strings.Fields(line)
		for n, kv := range f {
			if strings.HasPrefix(kv, "Port=") {
				f[n] = "Port=" + strconv.Itoa(base+i)
			}
		}
		lines[k] = strings.Join(f, " ")
	}
	return strings.Join(lines, "\n")
}
