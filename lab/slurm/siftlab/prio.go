package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// PrioFile is a priority scenario file: one cluster (SlurmConf: nodes and
// the settings every scenario shares; Sacctmgr: the base QOS, account and
// user) and scenarios run one after another on it. Each scenario builds its
// own association tree, writes its Priority* and PartitionName lines into
// slurm.conf and restarts slurmctld (scontrol reconfigure), runs short jobs
// to give the tree usage, queues jobs behind a blocker that holds every
// node, then restarts slurmctld again: its decay thread runs at once on
// start, applies the usage, computes fair-share and sets every pending
// job's priority at that instant (DecayEpoch), which is what sprio then
// prints.
type PrioFile struct {
	SlurmVersion string `json:"slurm_version"`
	SlurmCommit  string `json:"slurm_commit"`
	SlurmConf    string `json:"slurm_conf"`
	Sacctmgr     string `json:"sacctmgr"`
	LabScript    string `json:"lab_script,omitempty"`
	RecordedBy   string `json:"recorded_by,omitempty"`
	// GeneratedBy is the generator's command line.
	GeneratedBy string         `json:"generated_by,omitempty"`
	Scenarios   []PrioScenario `json:"scenarios"`
}

// PrioScenario is one tree, configuration and job mix.
type PrioScenario struct {
	Name string `json:"name"`
	// Conf holds the Priority* and PartitionName lines in force when the
	// priorities are computed; they replace those of SlurmConf.
	Conf string `json:"conf"`
	// Setup and Cleanup are sacctmgr commands, one a line, run before the
	// jobs (the tree, QOS priorities) and after the capture.
	Setup   string `json:"setup"`
	Cleanup string `json:"cleanup"`
	// Usage jobs run to completion first (Sleep seconds each, at once).
	Usage []PrioJob `json:"usage"`
	// Blocker holds every node so the Queue jobs pend.
	Blocker PrioJob `json:"blocker"`
	// Queue jobs are submitted in order, each Sleep seconds after the one
	// before, so their ages differ.
	Queue []PrioJob    `json:"queue"`
	Slurm *PrioCapture `json:"slurm,omitempty"`
}

// PrioJob is one submission.
type PrioJob struct {
	Account   string   `json:"account"`
	QOS       string   `json:"qos,omitempty"`
	Partition string   `json:"partition,omitempty"`
	Nice      int      `json:"nice,omitempty"`
	Args      []string `json:"args,omitempty"`
	Sleep     float64  `json:"sleep,omitempty"`
}

// PrioCapture is what Slurm printed after the scenario's restart.
type PrioCapture struct {
	// DecayEpoch is when the decay thread last ran (slurmctld's
	// priority_last_decay_ran state file): the "now" of every factor.
	DecayEpoch int64 `json:"decay_epoch"`
	// CaptureEpoch is when the reports below were read.
	CaptureEpoch int64 `json:"capture_epoch"`
	// Jobs holds, per submission (usage jobs, blocker, queue, in that
	// order), the fields of `scontrol show job` a replay needs, as
	// scontrol prints them ("JobId=7 JobState=PENDING ..."; empty for a
	// job slurmctld no longer knows or sbatch refused).
	Jobs []string `json:"jobs"`
	// Sprio is `sprio -l`; SprioNorm and SprioWeighted are sprio -o with
	// every factor normalized (%.7f) and weighted (%.0f); SprioWeights is
	// `sprio -w`. Each keeps its header line.
	Sprio         []string `json:"sprio"`
	SprioNorm     []string `json:"sprio_norm"`
	SprioWeighted []string `json:"sprio_weighted"`
	SprioWeights  []string `json:"sprio_weights"`
	// Sshare is `sshare -a -l -P` with its header line.
	Sshare []string `json:"sshare"`
	// SshareBefore is the same just before the restart (its columns up to
	// LevelFS: `sshare -a -P -o` with those), and DecayBefore
	// the decay thread's run before it: the usage the run starts from.
	// Classic fair-share (NO_FAIR_TREE, DEPTH_OBLIVIOUS) computes the
	// accounts' effective usage from it, before the run charges the
	// running jobs' usage of the period.
	SshareBefore []string `json:"sshare_before"`
	DecayBefore  int64    `json:"decay_before"`
	// Usage and UsageBefore are every association's raw usage to two
	// decimals ("account|user|usage", from `scontrol show assoc_mgr`),
	// after the restart and just before it: sshare prints RawUsage as a
	// whole number.
	Usage       []string `json:"usage"`
	UsageBefore []string `json:"usage_before"`
	// Assoc is `sacctmgr -P show assoc` (lineage, account, user, parent,
	// fairshare, priority) with its header line.
	Assoc []string `json:"assoc"`
	// Errors holds any command that failed, with its message.
	Errors []string `json:"errors,omitempty"`
}

// The sprio formats: every field sprio has, "|"-separated, no widths.
const (
	sprioNormFormat     = "%i|%r|%u|%o|%n|%N|%y|%S|%a|%b|%f|%j|%p|%q|%t"
	sprioWeightedFormat = "%i|%r|%u|%o|%n|%N|%Y|%S|%A|%B|%F|%J|%P|%Q|%T"
	sshareBeforeFormat  = "Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,FairShare,LevelFS"
)

// jobFields are the `scontrol show job` keys a replay reads.
var jobFields = []string{"JobId", "JobState", "Reason", "Priority", "Nice", "Account", "QOS",
	"Partition", "SubmitTime", "EligibleTime", "AccrueTime", "StartTime", "EndTime",
	"NumNodes", "NumCPUs", "NumTasks", "ReqTRES", "AllocTRES", "MinMemoryNode", "MinMemoryCPU", "TimeLimit"}

func readPrioFile(path string) (*PrioFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f PrioFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

func writePrioFile(path string, f *PrioFile) error {
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// priorecord records a priority scenario file.
func priorecord(args []string) error {
	fs := flag.NewFlagSet("priorecord", flag.ExitOnError)
	in := fs.String("in", "", "priority scenario file")
	out := fs.String("out", "", "recording to write")
	labDir := fs.String("lab", "lab/slurm", "directory of start.sh")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return errors.New("priorecord needs -in and -out")
	}
	f, err := readPrioFile(*in)
	if err != nil {
		return err
	}
	usePrefix()
	l := &lab{dir: *labDir, threads: nodeThreads(f.SlurmConf)}
	if err := l.start(&Recording{SlurmConf: f.SlurmConf, Sacctmgr: f.Sacctmgr}, f.SlurmConf); err != nil {
		return err
	}
	ver, _, err := l.cmd("sinfo", "-V")
	if err != nil {
		return fmt.Errorf("sinfo -V: %w", err)
	}
	f.SlurmVersion = strings.TrimSpace(ver)
	f.SlurmCommit = os.Getenv("SLURM_COMMIT")
	f.LabScript = "lab/slurm/start.sh"
	f.RecordedBy = "siftlab priorecord " + strings.Join(args, " ")
	for i := range f.Scenarios {
		t0 := time.Now()
		if err := l.runPrio(&f.Scenarios[i]); err != nil {
			return fmt.Errorf("scenario %q: %w", f.Scenarios[i].Name, err)
		}
		fmt.Fprintf(os.Stderr, "priorecord: %s %.1fs\n", f.Scenarios[i].Name, time.Since(t0).Seconds())
		// Write as we go: a long file interrupted keeps what it has.
		if err := writePrioFile(*out, f); err != nil {
			return err
		}
	}
	return l.clear()
}

func labRun() string {
	run := os.Getenv("LAB_RUN")
	if run == "" {
		run = filepath.Join(os.TempDir(), "sift-lab-"+currentUser())
	}
	return run
}

// sacctmgr runs commands, one a line, in one sacctmgr process.
func (l *lab) sacctmgr(cmds string) error {
	if strings.TrimSpace(cmds) == "" {
		return nil
	}
	c := exec.Command("sacctmgr", "-i")
	c.Stdin = strings.NewReader(strings.ReplaceAll(strings.TrimSpace(cmds), "@USER@", currentUser()) + "\n")
	b, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sacctmgr: %w: %s", err, b)
	}
	return nil
}

// sbatch submits j with a wrap of sleep s and returns the job id.
func (l *lab) sbatch(j PrioJob, s float64) (string, error) {
	args := []string{"--parsable", "--chdir=" + os.TempDir(), "--output=/dev/null", "-A", j.Account}
	if j.QOS != "" {
		args = append(args, "--qos="+j.QOS)
	}
	if j.Partition != "" {
		args = append(args, "-p", j.Partition)
	}
	if j.Nice != 0 {
		args = append(args, fmt.Sprintf("--nice=%d", j.Nice))
	}
	args = append(args, j.Args...)
	args = append(args, fmt.Sprintf("--wrap=sleep %g", s))
	out, errs, err := l.cmd("sbatch", args...)
	if err != nil {
		return "", fmt.Errorf("sbatch %v: %w: %s", args, err, errs)
	}
	return strings.TrimSpace(strings.Split(out, ";")[0]), nil
}

// decayEpoch reads the time the decay thread last ran: the state file
// holds it as a 64-bit big-endian time, followed by the last reset.
func decayEpoch() int64 {
	b, err := os.ReadFile(filepath.Join(labRun(), "state", "priority_last_decay_ran"))
	if err != nil || len(b) < 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b[:8]))
}

// waitGone waits until none of ids is queued or running.
func (l *lab) waitGone(ids []string) error {
	for range 600 {
		out, _, _ := l.cmd("squeue", "-h", "-o", "%i", "-j", strings.Join(ids, ","))
		if strings.TrimSpace(out) == "" {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("jobs %v did not finish", ids)
}

func (l *lab) waitRunning(id string) error {
	for range 300 {
		out, _, _ := l.cmd("squeue", "-h", "-o", "%T", "-j", id)
		if strings.TrimSpace(out) == "RUNNING" {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("blocker %s did not start", id)
}

// waitAccrue waits, up to 5 s, until every pending job of ids has an
// accrue time.
func (l *lab) waitAccrue(ids []string) {
	for range 50 {
		done := true
		for _, id := range ids {
			if id == "" {
				continue
			}
			out, _, _ := l.cmd("scontrol", "show", "job", id)
			if strings.Contains(out, "JobState=PENDING") && strings.Contains(out, "AccrueTime=Unknown") {
				done = false
				break
			}
		}
		if done {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setPrioConf replaces the Priority* and PartitionName lines of the running
// slurm.conf with conf.
func setPrioConf(conf string) error {
	path := filepath.Join(labRun(), "etc", "slurm.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var keep []string
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.HasPrefix(line, "Priority") || strings.HasPrefix(line, "PartitionName=") {
			continue
		}
		keep = append(keep, line)
	}
	keep = append(keep, strings.Split(strings.TrimRight(conf, "\n"), "\n")...)
	return os.WriteFile(path, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
}

// restart reconfigures slurmctld (a full restart in this Slurm) and waits
// until its decay thread has run.
func (l *lab) restart() error {
	before := time.Now().Unix()
	if _, errs, err := l.cmd("scontrol", "reconfigure"); err != nil {
		return fmt.Errorf("scontrol reconfigure: %w: %s", err, errs)
	}
	for range 300 {
		if decayEpoch() >= before {
			if _, _, err := l.cmd("scontrol", "ping"); err == nil {
				// The state file is written after the priorities are set.
				time.Sleep(300 * time.Millisecond)
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("slurmctld's decay thread did not run after reconfigure")
}

func (l *lab) runPrio(s *PrioScenario) error {
	if err := l.clear(); err != nil {
		return err
	}
	if err := l.sacctmgr(s.Setup); err != nil {
		return err
	}
	// The scenario's configuration holds from the start, so its usage
	// jobs are charged and its jobs accrue age under it.
	if err := setPrioConf(s.Conf); err != nil {
		return err
	}
	if err := l.restart(); err != nil {
		return err
	}
	var ids, usage []string
	for _, j := range s.Usage {
		id, err := l.sbatch(j, j.Sleep)
		if err != nil {
			return err
		}
		usage = append(usage, id)
	}
	ids = append(ids, usage...)
	if err := l.waitGone(usage); err != nil {
		return err
	}
	id, err := l.sbatch(s.Blocker, 100000)
	if err != nil {
		return err
	}
	ids = append(ids, id)
	if err := l.waitRunning(id); err != nil {
		return err
	}
	var refused []string
	for _, j := range s.Queue {
		time.Sleep(time.Duration(j.Sleep * float64(time.Second)))
		id, err := l.sbatch(j, 100000)
		if err != nil {
			// A job sbatch refuses keeps its place with no fields.
			refused = append(refused, err.Error())
		}
		ids = append(ids, id)
	}
	// A job's age counts from its accrue time, which slurmctld's next
	// scheduling pass sets; a job queued just before the restart would
	// otherwise get it only after the decay run that computes its age.
	l.waitAccrue(ids[len(usage)+1:])
	c := &PrioCapture{Errors: refused}
	run := func(name string, args ...string) []string {
		out, errs, err := l.cmd(name, args...)
		if err != nil {
			c.Errors = append(c.Errors, fmt.Sprintf("%s %v: %v: %s", name, args, err, strings.TrimSpace(errs)))
		}
		return reportLines(out)
	}
	c.SshareBefore = run("sshare", "-a", "-P", "-o", sshareBeforeFormat)
	c.UsageBefore = assocUsage(run("scontrol", "-o", "show", "assoc_mgr", "flags=assoc"))
	c.DecayBefore = decayEpoch()
	if err := l.restart(); err != nil {
		return err
	}
	c.DecayEpoch, c.CaptureEpoch = decayEpoch(), time.Now().Unix()
	c.Sprio = run("sprio", "-l")
	c.SprioNorm = run("sprio", "-n", "-o", sprioNormFormat)
	c.SprioWeighted = run("sprio", "-o", sprioWeightedFormat)
	c.SprioWeights = run("sprio", "-w")
	c.Sshare = run("sshare", "-a", "-l", "-P")
	c.Assoc = run("sacctmgr", "-P", "show", "assoc", "format=lineage,account,user,parentname,fairshare,priority")
	c.Usage = assocUsage(run("scontrol", "-o", "show", "assoc_mgr", "flags=assoc"))
	for _, id := range ids {
		if id == "" {
			c.Jobs = append(c.Jobs, "")
			continue
		}
		out, _, _ := l.cmd("scontrol", "show", "job", id)
		c.Jobs = append(c.Jobs, pickFields(out))
	}
	s.Slurm = c
	_, _, _ = l.cmd("scancel", "--full", "-u", currentUser())
	if err := l.clear(); err != nil {
		return err
	}
	// slurmdbd may not have the cancelled jobs' end yet ("Job(s) active,
	// cancel job(s) before remove"): try again for a while.
	err = l.sacctmgr(s.Cleanup)
	for try := 0; try < 30 && err != nil && strings.Contains(err.Error(), "Job(s) active"); try++ {
		time.Sleep(time.Second)
		err = l.sacctmgr(s.Cleanup)
	}
	return err
}

// reportLines splits a report into its lines, exactly as printed (only
// the final newline dropped).
func reportLines(out string) []string {
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// assocUsage reads `scontrol -o show assoc_mgr flags=assoc` lines into
// "account|user|UsageRaw" (user without its uid).
func assocUsage(lines []string) []string {
	var out []string
	for _, line := range lines {
		if !strings.HasPrefix(line, "ClusterName=") {
			continue
		}
		var acct, user, raw string
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "Account":
				acct = v
			case "UserName":
				user, _, _ = strings.Cut(v, "(")
			case "UsageRaw/Norm/Efctv":
				raw, _, _ = strings.Cut(v, "/")
			}
		}
		out = append(out, acct+"|"+user+"|"+raw)
	}
	return out
}

// pickFields keeps the jobFields of `scontrol show job` output, in
// jobFields' order.
func pickFields(out string) string {
	all := map[string]string{}
	for _, kv := range strings.Fields(out) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, seen := all[k]; !seen {
				all[k] = v
			}
		}
	}
	var kept []string
	for _, k := range jobFields {
		if v, ok := all[k]; ok {
			kept = append(kept, k+"="+v)
		}
	}
	return strings.Join(kept, " ")
}
