package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// preemptcases writes the hand-written preemption case files of
// lab/slurm/sched/preempt (gang, gangcores, partition_prio, qos, exempt,
// builtin):
// each case names what it checks; its steps are sbatch submissions,
// cancels, sleeps and snapshots, recorded in run-now mode.
func preemptcases(args []string) error {
	fs := flag.NewFlagSet("preemptcases", flag.ExitOnError)
	out := fs.String("out", "", "directory to write the six case files into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("preemptcases needs -out")
	}
	files := []struct {
		name, conf, sacctmgr string
		cases                []handCase
	}{
		{"gang.json", handPartConf(true), "", handPartCases(true)},
		{"gangcores.json", handPartConf(true), "", handGangCoreCases()},
		{"partition_prio.json", handPartConf(false), "", handPartCases(false)},
		{"qos.json", handQOSConf(), handQOSSacctmgr, handQOSCases()},
		{"exempt.json", handExemptConf(), "", handExemptCases()},
		{"builtin.json", handBuiltinConf(), "", handBuiltinCases()},
	}
	var counts []string
	for _, f := range files {
		if err := writeHandCases(filepath.Join(*out, f.name), f.conf, f.sacctmgr, f.cases); err != nil {
			return err
		}
		counts = append(counts, fmt.Sprintf("%d %s", len(f.cases), strings.TrimSuffix(f.name, ".json")))
	}
	fmt.Println(strings.Join(counts, ", ") + " cases")
	return nil
}

// handFile is a hand-written case file, its keys in the order the files
// have always had.
type handFile struct {
	SlurmVersion string     `json:"slurm_version"`
	SlurmCommit  string     `json:"slurm_commit"`
	SlurmConf    string     `json:"slurm_conf"`
	GresConf     string     `json:"gres_conf"`
	Cases        []handCase `json:"cases"`
	Sacctmgr     string     `json:"sacctmgr,omitempty"`
}

type handCase struct {
	Name string     `json:"name"`
	Mode string     `json:"mode"`
	Jobs []handStep `json:"jobs"`
}

// handStep is a submission (Sbatch) or an action, with no answer yet.
type handStep struct {
	Spec   string   `json:"spec"`
	Sbatch []string `json:"sbatch,omitempty"`
	Action string   `json:"action,omitempty"`
	Slurm  struct{} `json:"slurm"`
}

func writeHandCases(path, conf, sacctmgr string, cases []handCase) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(handFile{SlurmConf: conf, Cases: cases, Sacctmgr: sacctmgr}); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// handNodes are the four nodes of every hand-written cluster.
func handNodes() string {
	var b strings.Builder
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000\n", i, 22000+i)
	}
	return b.String()
}

// handCommon is the start of every hand-written slurm.conf. MinJobAge
// keeps preempted jobs to be read after the case; KillWait=2 ends a killed
// job that ignores SIGTERM quickly.
const handCommon = "SchedulerType=sched/backfill\nSchedulerParameters=bf_interval=1,requeue_delay=20\n" +
	"SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMinJobAge=600\nKillWait=2\n"

// handTrap is a script that ignores SIGTERM, to outlive a grace time.
const handTrap = "--wrap=trap '' TERM; sleep 100000"

// hj is a submission of spec (sbatch long options joined by commas) with
// a time limit of an hour; trap gives it the script that ignores SIGTERM.
func hj(spec string, trap ...bool) handStep {
	items := []string{"time=60"}
	for _, s := range strings.Split(spec, ",") {
		if s != "" {
			items = append(items, s)
		}
	}
	st := handStep{Spec: strings.Join(items, ",")}
	for _, s := range items {
		st.Sbatch = append(st.Sbatch, "--"+s)
	}
	if len(trap) > 0 && trap[0] {
		st.Sbatch = append(st.Sbatch, handTrap)
	}
	return st
}

// ha is an action step.
func ha(a string) handStep { return handStep{Action: a} }

// hcase is a run-now case whose steps end with settle seconds of waiting.
func hcase(name string, settle int, steps ...handStep) handCase {
	return handCase{Name: name, Mode: "run-now", Jobs: append(steps, ha(fmt.Sprintf("sleep:%d", settle)))}
}

// hrep is n copies of a step.
func hrep(n int, s handStep) []handStep {
	out := make([]handStep, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// hcat joins steps and step lists.
func hcat(parts ...any) []handStep {
	var out []handStep
	for _, p := range parts {
		switch v := p.(type) {
		case handStep:
			out = append(out, v)
		case []handStep:
			out = append(out, v...)
		}
	}
	return out
}

func handPartCases(gang bool) []handCase {
	var c []handCase
	add := func(name string, steps ...any) { c = append(c, hcase(name, 4, hcat(steps...)...)) }
	modes := [][2]string{{"cancel", "lo_cancel"}, {"requeue", "lo_requeue"}}
	if gang {
		modes = append(modes, [2]string{"suspend", "lo_susp"})
	}
	hi2 := hj("partition=hi,nodes=2,exclusive")
	for _, m := range modes {
		mode, p := m[0], m[1]
		lo := func(spec string) handStep { return hj("partition=" + p + "," + spec) }
		add(mode+": a whole-cluster job gives way to a higher tier job", lo("nodes=4,exclusive"), ha("sleep:1"), hi2)
		add(mode+": two 2-node victims, one is enough", lo("nodes=2,exclusive"), lo("nodes=2,exclusive"), ha("sleep:1"), hi2)
		add(mode+": four 1-node victims, two are needed", hrep(4, lo("nodes=1,exclusive")), ha("sleep:1"), hi2)
		add(mode+": the smaller victim goes first", lo("nodes=2,exclusive"), lo("nodes=1,exclusive"), lo("nodes=1,exclusive"),
			ha("sleep:1"), hj("partition=hi,nodes=1,exclusive"))
		add(mode+": a 3-node and a 1-node victim for a 2-node job", lo("nodes=3,exclusive"), lo("nodes=1,exclusive"), ha("sleep:1"), hi2)
		add(mode+": cores: one 4-core victim per node, preemptor asks 6 cores", hrep(4, lo("nodes=1,ntasks=4")), ha("sleep:1"),
			hj("partition=hi,ntasks=6"))
		add(mode+": a nodelist names the victim", lo("nodes=2,exclusive"), lo("nodes=2,exclusive"), ha("sleep:1"),
			hj("partition=hi,nodes=1,exclusive,nodelist=n4"))
		add(mode+": two preemptors, one victim each", lo("nodes=2,exclusive"), lo("nodes=2,exclusive"), ha("sleep:1"), hi2, hi2)
	}
	add("cancel: idle nodes suffice, nothing is preempted", hj("partition=lo_cancel,nodes=2,exclusive"), ha("sleep:1"), hi2)
	add("cancel: idle nodes and one victim", hj("partition=lo_cancel,nodes=2,exclusive"), ha("sleep:1"), hj("partition=hi,nodes=3,exclusive"))
	add("cancel: mid tier preempts the low tier", hj("partition=lo_cancel,nodes=4,exclusive"), ha("sleep:1"), hj("partition=mid,nodes=2,exclusive"))
	add("cancel: the high tier preempts the mid tier", hj("partition=mid,nodes=4,exclusive"), ha("sleep:1"), hi2)
	add("cancel: the lowest tier goes first", hj("partition=mid,nodes=2,exclusive"), hj("partition=lo_cancel,nodes=2,exclusive"), ha("sleep:1"), hi2)
	add("cancel: both tiers for a whole-cluster job", hj("partition=mid,nodes=2,exclusive"), hj("partition=lo_cancel,nodes=2,exclusive"),
		ha("sleep:1"), hj("partition=hi,nodes=4,exclusive"))
	add("off: PreemptMode=OFF partition is never preempted", hj("partition=lo_off,nodes=4,exclusive"), ha("sleep:1"), hi2)
	add("off: the preemptable job goes, the OFF one stays", hj("partition=lo_off,nodes=2,exclusive"), hj("partition=lo_cancel,nodes=2,exclusive"),
		ha("sleep:1"), hi2)
	add("off: too few preemptable nodes, nothing is preempted", hj("partition=lo_off,nodes=2,exclusive"), hj("partition=lo_cancel,nodes=2,exclusive"),
		ha("sleep:1"), hj("partition=hi,nodes=3,exclusive"))
	add("same tier: no preemption between tier-1 partitions", hj("partition=lo_cancel,nodes=4,exclusive"), ha("sleep:1"),
		hj("partition=lo_requeue,nodes=2,exclusive"))
	add("requeue: --no-requeue victim is killed", hj("partition=lo_requeue,nodes=4,exclusive,no-requeue"), ha("sleep:1"), hi2)
	add("requeue: the victim runs again after requeue_delay once the preemptor ends", hj("partition=lo_requeue,nodes=4,exclusive"), ha("sleep:1"), hi2,
		ha("sleep:3"), ha("snapshot"), ha("cancel:2"), ha("sleep:25"))
	if gang {
		add("suspend: the victim resumes when the preemptor ends", hj("partition=lo_susp,nodes=4,exclusive"), ha("sleep:1"), hi2,
			ha("sleep:3"), ha("snapshot"), ha("cancel:2"), ha("sleep:3"))
		add("grace: the gang scheduler preempts a cancel victim without its GraceTime", hj("partition=lo_grace,nodes=4,exclusive"), ha("sleep:1"), hi2)
		add("grace: the gang scheduler requeues a victim without its GraceTime", hj("partition=lo_rq_grace,nodes=4,exclusive"), ha("sleep:1"), hi2)
	} else {
		add("grace: a cancel victim runs on for GraceTime", hj("partition=lo_grace,nodes=4,exclusive", true), ha("sleep:1"), hi2,
			ha("sleep:3"), ha("snapshot"), ha("sleep:16"))
		add("grace: a requeue victim runs on for GraceTime", hj("partition=lo_rq_grace,nodes=4,exclusive", true), ha("sleep:1"), hi2,
			ha("sleep:3"), ha("snapshot"), ha("sleep:16"))
		add("grace: a victim that does not ignore SIGTERM ends at once", hj("partition=lo_grace,nodes=4,exclusive"), ha("sleep:1"), hi2)
		add("grace: a second preemptor waits for the same victim", hj("partition=lo_grace,nodes=4,exclusive", true), ha("sleep:1"), hi2, hi2,
			ha("sleep:3"), ha("snapshot"), ha("sleep:16"))
	}
	add("order: a pending low job stays behind the preemptor", hj("partition=lo_cancel,nodes=4,exclusive"), hj("partition=lo_cancel,nodes=1,exclusive"),
		ha("sleep:1"), hi2)
	c = append(c, hcase("order: a hi job too big for the cluster preempts nothing", 3, hj("partition=lo_cancel,nodes=4,exclusive"), ha("sleep:1"),
		hj("partition=hi,nodes=5,exclusive")))
	add("cores: a small preemptor takes idle cores first", hrep(2, hj("partition=lo_cancel,nodes=1,ntasks=2")), ha("sleep:1"), hj("partition=hi,ntasks=4"))
	add("cores: a whole-cluster core job preempts every victim", hrep(4, hj("partition=lo_cancel,nodes=1,ntasks=2")), ha("sleep:1"),
		hj("partition=hi,ntasks=16"))
	return c
}

// handGangCoreCases are the gang scheduler's suspended jobs on shared
// nodes (cons_tres, SUSPEND,GANG): a suspended job keeps its cores in its
// partition's row, so they are not idle, jobs of its tier cannot have
// them, and a higher tier's job is placed over them as over a running
// lower-tier job's, by best fit.
func handGangCoreCases() []handCase {
	lo := func(spec string) handStep { return hj("partition=lo_susp," + spec) }
	hi := func(spec string) handStep { return hj("partition=hi," + spec) }
	return []handCase{
		hcase("keep: the next hi job best-fits over a running job, not the suspended job's cores", 4,
			lo("nodes=1,exclusive"), lo("ntasks=2"), lo("nodes=1,exclusive"), lo("nodes=1,exclusive"), ha("sleep:1"),
			hi("ntasks=2"), hi("ntasks=1,nodelist=n1"), hi("ntasks=2"), ha("sleep:2"), ha("snapshot"),
			lo("ntasks=1"), hj("partition=mid,ntasks=1")),
		hcase("keep: a suspended whole-cluster job's cores stay closed to its tier, open to higher ones", 4,
			lo("nodes=4,exclusive"), ha("sleep:1"), hi("ntasks=1"), ha("sleep:1"), ha("snapshot"),
			lo("ntasks=1"), hj("partition=mid,ntasks=1"), hi("ntasks=2")),
		hcase("keep: the victim resumes once no higher-tier job holds its cores", 4,
			lo("nodes=2,exclusive"), lo("nodes=2,exclusive"), ha("sleep:1"), hi("ntasks=1"), hi("ntasks=1,nodelist=n3"),
			ha("sleep:2"), ha("snapshot"), ha("cancel:3"), ha("sleep:3"), ha("snapshot"), ha("cancel:4")),
		hcase("same tier: another tier-1 partition's job beside a suspended job", 6,
			lo("nodes=4,exclusive"), ha("sleep:1"), hi("ntasks=1"), ha("sleep:1"), ha("snapshot"),
			hj("partition=lo_cancel,ntasks=1")),
		hcase("same tier: another tier-1 partition's job beside running and suspended jobs", 6,
			lo("nodes=2,exclusive"), lo("nodes=2,exclusive"), ha("sleep:1"), hi("ntasks=1,nodelist=n1"), ha("sleep:1"), ha("snapshot"),
			hj("partition=lo_cancel,ntasks=1")),
		hcase("same tier: a pending job of the suspended job's partition goes first", 6,
			lo("nodes=4,exclusive"), ha("sleep:1"), hi("ntasks=1"), ha("sleep:1"), ha("snapshot"),
			lo("ntasks=1"), hj("partition=lo_cancel,ntasks=1")),
		hcase("same tier: another tier-1 partition's job beside running jobs that share their nodes", 6,
			hcat(hrep(4, lo("ntasks=4")), ha("sleep:1"), ha("snapshot"), hj("partition=lo_cancel,ntasks=1"))...),
		hcase("same tier: an exclusive job beside running jobs that share their nodes", 6,
			hcat(hrep(4, lo("ntasks=4")), ha("sleep:1"), ha("snapshot"), hj("partition=lo_cancel,nodes=1,exclusive"))...),
	}
}

func handPartConf(gang bool) string {
	parts := []string{
		"PartitionName=lo_cancel Nodes=ALL PriorityTier=1 PreemptMode=CANCEL Default=YES",
		"PartitionName=lo_requeue Nodes=ALL PriorityTier=1 PreemptMode=REQUEUE",
		"PartitionName=lo_susp Nodes=ALL PriorityTier=1",
		"PartitionName=lo_off Nodes=ALL PriorityTier=1 PreemptMode=OFF",
		"PartitionName=lo_grace Nodes=ALL PriorityTier=1 PreemptMode=CANCEL GraceTime=10",
		"PartitionName=lo_rq_grace Nodes=ALL PriorityTier=1 PreemptMode=REQUEUE GraceTime=10",
		"PartitionName=mid Nodes=ALL PriorityTier=5 PreemptMode=CANCEL",
		"PartitionName=hi Nodes=ALL PriorityTier=10",
	}
	mode := "REQUEUE"
	if gang {
		mode = "SUSPEND,GANG"
	}
	var b strings.Builder
	b.WriteString(handCommon + "PreemptType=preempt/partition_prio\nPreemptMode=" + mode + "\n" + handNodes())
	for _, p := range parts {
		if !gang && strings.HasPrefix(p, "PartitionName=lo_susp ") {
			continue
		}
		b.WriteString(p + " MaxTime=UNLIMITED State=UP\n")
	}
	return b.String()
}

func handQOSCases() []handCase {
	var c []handCase
	add := func(name string, steps ...any) { c = append(c, hcase(name, 4, hcat(steps...)...)) }
	// The lab's user is in account lab, which holds the QOS; its
	// default account (root) does not.
	q := func(name, spec string, trap ...bool) handStep {
		return hj("partition=p,account=lab,qos="+name+","+spec, trap...)
	}
	x2, x4 := "nodes=2,exclusive", "nodes=4,exclusive"
	add("qos: high preempts normal (cancel)", q("normal", x4), ha("sleep:1"), q("high", x2))
	add("qos: high preempts low (requeue)", q("low", x4), ha("sleep:1"), q("high", x2))
	add("qos: normal does not preempt high", q("high", x4), ha("sleep:1"), q("normal", x2))
	add("qos: the same QOS does not preempt itself", q("normal", x4), ha("sleep:1"), q("normal", x2))
	add("qos: the lower QOS priority goes first", q("normal", x2), q("low", x2), ha("sleep:1"), q("high", x2))
	add("qos: normal preempts low only", q("low", x2), q("high", x2), ha("sleep:1"), q("normal", x2))
	add("qos: a QOS not listed is spared", q("other", x4), ha("sleep:1"), q("high", x2))
	add("qos: grace time of the victim's QOS", q("gracy", x4, true), ha("sleep:1"), q("high", x2), ha("sleep:3"), ha("snapshot"), ha("sleep:12"))
	add("qos: the preemptor queues first whatever its priority", q("normal", x4), q("normal", x2), ha("sleep:1"), q("high", x2))
	add("qos: four 1-node victims of two QOS", q("normal", "nodes=1,exclusive"), q("low", "nodes=1,exclusive"), q("normal", "nodes=1,exclusive"),
		q("low", "nodes=1,exclusive"), ha("sleep:1"), q("high", x2))
	add("qos: requeued low job waits BeginTime", q("low", x2), q("low", x2), ha("sleep:1"), q("high", x4))
	add("qos: cores of a normal victim", hrep(4, q("normal", "nodes=1,ntasks=4")), ha("sleep:1"), q("high", "ntasks=6"))
	return c
}

func handQOSConf() string {
	return handCommon + "PreemptType=preempt/qos\nPreemptMode=CANCEL\n" + handNodes() +
		"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n"
}

// handQOSSacctmgr makes the QOS of qos.json. A QOS must exist before
// another's Preempt= names it; slurmdbd makes "normal" itself.
const handQOSSacctmgr = `add qos low Priority=10 PreemptMode=requeue
add qos other Priority=5
add qos gracy Priority=5 GraceTime=10 PreemptMode=cancel
modify qos normal set Priority=50 Preempt=low PreemptMode=cancel
add qos high Priority=100 Preempt=normal,low,gracy
add account lab
add user @USER@ account=lab qos=normal,high,low,other,gracy defaultqos=normal
`

func handExemptCases() []handCase {
	lo1, lo2, lo4 := hj("partition=lo,nodes=1,exclusive"), hj("partition=lo,nodes=2,exclusive"), hj("partition=lo,nodes=4,exclusive")
	hi1, hi2 := hj("partition=hi,nodes=1,exclusive"), hj("partition=hi,nodes=2,exclusive")
	return []handCase{
		hcase("exempt: a job younger than PreemptExemptTime is spared", 2, lo4, hi2, ha("sleep:2"), ha("snapshot")),
		hcase("exempt: the older of two jobs is the victim", 4, lo2, ha("sleep:10"), lo2, hi2),
		hcase("exempt: the spared job is preempted at a later pass", 4, lo4, hi2, ha("sleep:2"), ha("snapshot"), ha("sleep:12")),
		hcase("youngest_first: the latest started 1-node victim goes", 4, lo1, ha("sleep:10"), lo1, lo1, lo1, ha("sleep:10"), hi1),
		hcase("youngest_first: a 2-node preemptor takes the two youngest", 4, lo1, ha("sleep:10"), lo1, ha("sleep:1"), lo1, ha("sleep:1"), lo1,
			ha("sleep:10"), hi2),
		hcase("youngest_first: a 2-node victim started last goes before older 1-node ones", 4, lo1, lo1, ha("sleep:10"), lo2, ha("sleep:10"), hi1),
	}
}

func handExemptConf() string {
	return handCommon + "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\nPreemptExemptTime=00:00:08\n" +
		"PreemptParameters=youngest_first\n" + handNodes() +
		"PartitionName=lo Nodes=ALL PriorityTier=1 Default=YES MaxTime=UNLIMITED State=UP\n" +
		"PartitionName=hi Nodes=ALL PriorityTier=10 MaxTime=UNLIMITED State=UP\n"
}

func handBuiltinCases() []handCase {
	lo2, lo4 := hj("partition=lo,nodes=2,exclusive"), hj("partition=lo,nodes=4,exclusive")
	hi2 := hj("partition=hi,nodes=2,exclusive")
	return []handCase{
		hcase("builtin: a whole-cluster job gives way", 4, lo4, ha("sleep:1"), hi2),
		hcase("builtin: one of two victims", 4, lo2, lo2, ha("sleep:1"), hi2),
		hcase("builtin: a pending low job stays behind", 4, lo4, lo2, ha("sleep:1"), hi2),
		hcase("builtin: two preemptors", 4, lo2, lo2, ha("sleep:1"), hi2, hi2),
		hcase("builtin: the preempting job ahead of a blocked one", 4, lo4, ha("sleep:1"), hj("partition=hi,nodes=4,exclusive"),
			hj("partition=hi,nodes=1,exclusive")),
	}
}

func handBuiltinConf() string {
	return strings.Replace(handCommon, "sched/backfill", "sched/builtin", 1) + "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n" + handNodes() +
		"PartitionName=lo Nodes=ALL PriorityTier=1 Default=YES MaxTime=UNLIMITED State=UP\n" +
		"PartitionName=hi Nodes=ALL PriorityTier=10 MaxTime=UNLIMITED State=UP\n"
}
