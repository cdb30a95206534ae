#!/usr/bin/env python3
"""Writes the hand-written preemption case files of this directory
(partition_prio.json, qos.json): python3 cases.py. Each case names what it
checks; steps are sbatch submissions, cancels, sleeps and snapshots."""
import json

NODES = "".join(
    f"NodeName=n{i} NodeAddr=127.0.0.1 Port={22000 + i} CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000\n"
    for i in range(1, 5))
# MinJobAge keeps preempted jobs to be read after the case; KillWait=2 ends
# a killed job that ignores SIGTERM quickly.
COMMON = ("SchedulerType=sched/backfill\nSchedulerParameters=bf_interval=1,requeue_delay=20\n"
          "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMinJobAge=600\nKillWait=2\n")
TRAP = "--wrap=trap '' TERM; sleep 100000"


def job(spec, trap=False):
    items = ["time=60"] + [s for s in spec.split(",") if s]
    sb = ["--" + s for s in items]
    if trap:
        sb.append(TRAP)
    return {"spec": ",".join(items), "sbatch": sb, "slurm": {}}


def act(a):
    return {"spec": "", "action": a, "slurm": {}}


def case(name, steps, settle=4):
    return {"name": name, "mode": "run-now", "jobs": steps + [act(f"sleep:{settle}")]}


def part_cases(gang):
    c = []
    modes = [("cancel", "lo_cancel"), ("requeue", "lo_requeue")]
    if gang:
        modes.append(("suspend", "lo_susp"))
    for mode, p in modes:
        c.append(case(f"{mode}: a whole-cluster job gives way to a higher tier job",
                      [job(f"partition={p},nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
        c.append(case(f"{mode}: two 2-node victims, one is enough",
                      [job(f"partition={p},nodes=2,exclusive"), job(f"partition={p},nodes=2,exclusive"), act("sleep:1"),
                       job("partition=hi,nodes=2,exclusive")]))
        c.append(case(f"{mode}: four 1-node victims, two are needed",
                      [job(f"partition={p},nodes=1,exclusive") for _ in range(4)] + [act("sleep:1"),
                       job("partition=hi,nodes=2,exclusive")]))
        c.append(case(f"{mode}: the smaller victim goes first",
                      [job(f"partition={p},nodes=2,exclusive"), job(f"partition={p},nodes=1,exclusive"),
                       job(f"partition={p},nodes=1,exclusive"), act("sleep:1"), job("partition=hi,nodes=1,exclusive")]))
        c.append(case(f"{mode}: a 3-node and a 1-node victim for a 2-node job",
                      [job(f"partition={p},nodes=3,exclusive"), job(f"partition={p},nodes=1,exclusive"), act("sleep:1"),
                       job("partition=hi,nodes=2,exclusive")]))
        c.append(case(f"{mode}: cores: one 4-core victim per node, preemptor asks 6 cores",
                      [job(f"partition={p},nodes=1,ntasks=4") for _ in range(4)] + [act("sleep:1"),
                       job("partition=hi,ntasks=6")]))
        c.append(case(f"{mode}: a nodelist names the victim",
                      [job(f"partition={p},nodes=2,exclusive"), job(f"partition={p},nodes=2,exclusive"), act("sleep:1"),
                       job("partition=hi,nodes=1,exclusive,nodelist=n4")]))
        c.append(case(f"{mode}: two preemptors, one victim each",
                      [job(f"partition={p},nodes=2,exclusive"), job(f"partition={p},nodes=2,exclusive"), act("sleep:1"),
                       job("partition=hi,nodes=2,exclusive"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("cancel: idle nodes suffice, nothing is preempted",
                  [job("partition=lo_cancel,nodes=2,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("cancel: idle nodes and one victim",
                  [job("partition=lo_cancel,nodes=2,exclusive"), act("sleep:1"), job("partition=hi,nodes=3,exclusive")]))
    c.append(case("cancel: mid tier preempts the low tier",
                  [job("partition=lo_cancel,nodes=4,exclusive"), act("sleep:1"), job("partition=mid,nodes=2,exclusive")]))
    c.append(case("cancel: the high tier preempts the mid tier",
                  [job("partition=mid,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("cancel: the lowest tier goes first",
                  [job("partition=mid,nodes=2,exclusive"), job("partition=lo_cancel,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=2,exclusive")]))
    c.append(case("cancel: both tiers for a whole-cluster job",
                  [job("partition=mid,nodes=2,exclusive"), job("partition=lo_cancel,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=4,exclusive")]))
    c.append(case("off: PreemptMode=OFF partition is never preempted",
                  [job("partition=lo_off,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("off: the preemptable job goes, the OFF one stays",
                  [job("partition=lo_off,nodes=2,exclusive"), job("partition=lo_cancel,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=2,exclusive")]))
    c.append(case("off: too few preemptable nodes, nothing is preempted",
                  [job("partition=lo_off,nodes=2,exclusive"), job("partition=lo_cancel,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=3,exclusive")]))
    c.append(case("same tier: no preemption between tier-1 partitions",
                  [job("partition=lo_cancel,nodes=4,exclusive"), act("sleep:1"), job("partition=lo_requeue,nodes=2,exclusive")]))
    c.append(case("requeue: --no-requeue victim is killed",
                  [job("partition=lo_requeue,nodes=4,exclusive,no-requeue"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("requeue: the victim runs again after requeue_delay once the preemptor ends",
                  [job("partition=lo_requeue,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive"),
                   act("sleep:3"), act("snapshot"), act("cancel:2"), act("sleep:25")]))
    if gang:
        c.append(case("suspend: the victim resumes when the preemptor ends",
                      [job("partition=lo_susp,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive"),
                       act("sleep:3"), act("snapshot"), act("cancel:2"), act("sleep:3")]))
        c.append(case("grace: the gang scheduler preempts a cancel victim without its GraceTime",
                      [job("partition=lo_grace,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
        c.append(case("grace: the gang scheduler requeues a victim without its GraceTime",
                      [job("partition=lo_rq_grace,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
    else:
        c.append(case("grace: a cancel victim runs on for GraceTime",
                      [job("partition=lo_grace,nodes=4,exclusive", trap=True), act("sleep:1"), job("partition=hi,nodes=2,exclusive"),
                       act("sleep:3"), act("snapshot"), act("sleep:16")]))
        c.append(case("grace: a requeue victim runs on for GraceTime",
                      [job("partition=lo_rq_grace,nodes=4,exclusive", trap=True), act("sleep:1"), job("partition=hi,nodes=2,exclusive"),
                       act("sleep:3"), act("snapshot"), act("sleep:16")]))
        c.append(case("grace: a victim that does not ignore SIGTERM ends at once",
                      [job("partition=lo_grace,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
        c.append(case("grace: a second preemptor waits for the same victim",
                      [job("partition=lo_grace,nodes=4,exclusive", trap=True), act("sleep:1"), job("partition=hi,nodes=2,exclusive"),
                       job("partition=hi,nodes=2,exclusive"), act("sleep:3"), act("snapshot"), act("sleep:16")]))
    c.append(case("order: a pending low job stays behind the preemptor",
                  [job("partition=lo_cancel,nodes=4,exclusive"), job("partition=lo_cancel,nodes=1,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=2,exclusive")]))
    c.append(case("order: a hi job too big for the cluster preempts nothing",
                  [job("partition=lo_cancel,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=5,exclusive")], settle=3))
    c.append(case("cores: a small preemptor takes idle cores first",
                  [job("partition=lo_cancel,nodes=1,ntasks=2") for _ in range(2)] + [act("sleep:1"), job("partition=hi,ntasks=4")]))
    c.append(case("cores: a whole-cluster core job preempts every victim",
                  [job("partition=lo_cancel,nodes=1,ntasks=2") for _ in range(4)] + [act("sleep:1"), job("partition=hi,ntasks=16")]))
    return c


def part_conf(gang):
    parts = [
        "PartitionName=lo_cancel Nodes=ALL PriorityTier=1 PreemptMode=CANCEL Default=YES",
        "PartitionName=lo_requeue Nodes=ALL PriorityTier=1 PreemptMode=REQUEUE",
        "PartitionName=lo_susp Nodes=ALL PriorityTier=1",
        "PartitionName=lo_off Nodes=ALL PriorityTier=1 PreemptMode=OFF",
        "PartitionName=lo_grace Nodes=ALL PriorityTier=1 PreemptMode=CANCEL GraceTime=10",
        "PartitionName=lo_rq_grace Nodes=ALL PriorityTier=1 PreemptMode=REQUEUE GraceTime=10",
        "PartitionName=mid Nodes=ALL PriorityTier=5 PreemptMode=CANCEL",
        "PartitionName=hi Nodes=ALL PriorityTier=10",
    ]
    mode = "SUSPEND,GANG" if gang else "REQUEUE"
    if not gang:
        parts = [p for p in parts if not p.startswith("PartitionName=lo_susp ")]
    return (COMMON + "PreemptType=preempt/partition_prio\nPreemptMode=" + mode + "\n" + NODES +
            "\n".join(p + " MaxTime=UNLIMITED State=UP" for p in parts) + "\n")


def qos_cases():
    c = []
    # The lab's user is in account lab, which holds the QOS; its default
    # account (root) does not.
    q = lambda name, spec, trap=False: job(f"partition=p,account=lab,qos={name},{spec}", trap)
    c.append(case("qos: high preempts normal (cancel)", [q("normal", "nodes=4,exclusive"), act("sleep:1"), q("high", "nodes=2,exclusive")]))
    c.append(case("qos: high preempts low (requeue)", [q("low", "nodes=4,exclusive"), act("sleep:1"), q("high", "nodes=2,exclusive")]))
    c.append(case("qos: normal does not preempt high", [q("high", "nodes=4,exclusive"), act("sleep:1"), q("normal", "nodes=2,exclusive")]))
    c.append(case("qos: the same QOS does not preempt itself", [q("normal", "nodes=4,exclusive"), act("sleep:1"), q("normal", "nodes=2,exclusive")]))
    c.append(case("qos: the lower QOS priority goes first",
                  [q("normal", "nodes=2,exclusive"), q("low", "nodes=2,exclusive"), act("sleep:1"), q("high", "nodes=2,exclusive")]))
    c.append(case("qos: normal preempts low only",
                  [q("low", "nodes=2,exclusive"), q("high", "nodes=2,exclusive"), act("sleep:1"), q("normal", "nodes=2,exclusive")]))
    c.append(case("qos: a QOS not listed is spared",
                  [q("other", "nodes=4,exclusive"), act("sleep:1"), q("high", "nodes=2,exclusive")]))
    c.append(case("qos: grace time of the victim's QOS",
                  [q("gracy", "nodes=4,exclusive", trap=True), act("sleep:1"), q("high", "nodes=2,exclusive"),
                   act("sleep:3"), act("snapshot"), act("sleep:12")]))
    c.append(case("qos: the preemptor queues first whatever its priority",
                  [q("normal", "nodes=4,exclusive"), q("normal", "nodes=2,exclusive"), act("sleep:1"), q("high", "nodes=2,exclusive")]))
    c.append(case("qos: four 1-node victims of two QOS",
                  [q("normal", "nodes=1,exclusive"), q("low", "nodes=1,exclusive"), q("normal", "nodes=1,exclusive"),
                   q("low", "nodes=1,exclusive"), act("sleep:1"), q("high", "nodes=2,exclusive")]))
    c.append(case("qos: requeued low job waits BeginTime", [q("low", "nodes=2,exclusive"), q("low", "nodes=2,exclusive"), act("sleep:1"),
                  q("high", "nodes=4,exclusive")]))
    c.append(case("qos: cores of a normal victim", [q("normal", "nodes=1,ntasks=4"), q("normal", "nodes=1,ntasks=4"),
                  q("normal", "nodes=1,ntasks=4"), q("normal", "nodes=1,ntasks=4"), act("sleep:1"), q("high", "ntasks=6")]))
    return c


def qos_conf():
    return (COMMON + "PreemptType=preempt/qos\nPreemptMode=CANCEL\n" + NODES +
            "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n")


# A QOS must exist before another's Preempt= names it; slurmdbd makes
# "normal" itself.
QOS_SACCTMGR = """add qos low Priority=10 PreemptMode=requeue
add qos other Priority=5
add qos gracy Priority=5 GraceTime=10 PreemptMode=cancel
modify qos normal set Priority=50 Preempt=low PreemptMode=cancel
add qos high Priority=100 Preempt=normal,low,gracy
add account lab
add user @USER@ account=lab qos=normal,high,low,other,gracy defaultqos=normal
"""


def exempt_cases():
    c = []
    c.append(case("exempt: a job younger than PreemptExemptTime is spared",
                  [job("partition=lo,nodes=4,exclusive"), job("partition=hi,nodes=2,exclusive"),
                   act("sleep:2"), act("snapshot")], settle=2))
    c.append(case("exempt: the older of two jobs is the victim",
                  [job("partition=lo,nodes=2,exclusive"), act("sleep:10"), job("partition=lo,nodes=2,exclusive"),
                   job("partition=hi,nodes=2,exclusive")]))
    c.append(case("exempt: the spared job is preempted at a later pass",
                  [job("partition=lo,nodes=4,exclusive"), job("partition=hi,nodes=2,exclusive"),
                   act("sleep:2"), act("snapshot"), act("sleep:12")]))
    c.append(case("youngest_first: the latest started 1-node victim goes",
                  [job("partition=lo,nodes=1,exclusive"), act("sleep:10"), job("partition=lo,nodes=1,exclusive"),
                   job("partition=lo,nodes=1,exclusive"), job("partition=lo,nodes=1,exclusive"), act("sleep:10"),
                   job("partition=hi,nodes=1,exclusive")]))
    c.append(case("youngest_first: a 2-node preemptor takes the two youngest",
                  [job("partition=lo,nodes=1,exclusive"), act("sleep:10"), job("partition=lo,nodes=1,exclusive"),
                   act("sleep:1"), job("partition=lo,nodes=1,exclusive"), act("sleep:1"), job("partition=lo,nodes=1,exclusive"),
                   act("sleep:10"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("youngest_first: a 2-node victim started last goes before older 1-node ones",
                  [job("partition=lo,nodes=1,exclusive"), job("partition=lo,nodes=1,exclusive"), act("sleep:10"),
                   job("partition=lo,nodes=2,exclusive"), act("sleep:10"), job("partition=hi,nodes=1,exclusive")]))
    return c


def exempt_conf():
    return (COMMON + "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\nPreemptExemptTime=00:00:08\n"
            "PreemptParameters=youngest_first\n" + NODES +
            "PartitionName=lo Nodes=ALL PriorityTier=1 Default=YES MaxTime=UNLIMITED State=UP\n"
            "PartitionName=hi Nodes=ALL PriorityTier=10 MaxTime=UNLIMITED State=UP\n")


def builtin_cases():
    c = []
    c.append(case("builtin: a whole-cluster job gives way",
                  [job("partition=lo,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("builtin: one of two victims",
                  [job("partition=lo,nodes=2,exclusive"), job("partition=lo,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=2,exclusive")]))
    c.append(case("builtin: a pending low job stays behind",
                  [job("partition=lo,nodes=4,exclusive"), job("partition=lo,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=2,exclusive")]))
    c.append(case("builtin: two preemptors",
                  [job("partition=lo,nodes=2,exclusive"), job("partition=lo,nodes=2,exclusive"), act("sleep:1"),
                   job("partition=hi,nodes=2,exclusive"), job("partition=hi,nodes=2,exclusive")]))
    c.append(case("builtin: the preempting job ahead of a blocked one",
                  [job("partition=lo,nodes=4,exclusive"), act("sleep:1"), job("partition=hi,nodes=4,exclusive"),
                   job("partition=hi,nodes=1,exclusive")]))
    return c


def builtin_conf():
    return (COMMON.replace("sched/backfill", "sched/builtin") + "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n" + NODES +
            "PartitionName=lo Nodes=ALL PriorityTier=1 Default=YES MaxTime=UNLIMITED State=UP\n"
            "PartitionName=hi Nodes=ALL PriorityTier=10 MaxTime=UNLIMITED State=UP\n")


def write(path, conf, cases, sacctmgr=""):
    rec = {"slurm_version": "", "slurm_commit": "", "slurm_conf": conf, "gres_conf": "", "cases": cases}
    if sacctmgr:
        rec["sacctmgr"] = sacctmgr
    with open(path, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


write("gang.json", part_conf(True), part_cases(True))
write("partition_prio.json", part_conf(False), part_cases(False))
write("qos.json", qos_conf(), qos_cases(), QOS_SACCTMGR)
write("exempt.json", exempt_conf(), exempt_cases())
write("builtin.json", builtin_conf(), builtin_cases())
print(len(part_cases(True)), "gang,", len(part_cases(False)), "partition_prio,", len(qos_cases()), "qos,",
      len(exempt_cases()), "exempt,", len(builtin_cases()), "builtin cases")
