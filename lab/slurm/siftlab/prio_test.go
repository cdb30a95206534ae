package main

import (
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestPriogenScenariosAreRunnable checks what the recorder relies on: every
// account's parent is added before it, every job's account holds the
// user, the usage jobs fit the cluster at once, and the cleanup deletes
// every account the setup added.
func TestPriogenScenariosAreRunnable(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	f := genPrioFile(rng, 0, 50, 27001, true)
	if got := len(nodeThreads(f.SlurmConf)); got != prioNodes {
		t.Fatalf("%d nodes in slurm.conf, want %d", got, prioNodes)
	}
	for _, s := range f.Scenarios {
		known := map[string]bool{"root": true}
		users := map[string]bool{}
		var added []string
		for _, line := range strings.Split(strings.TrimSpace(s.Setup), "\n") {
			w := strings.Fields(line)
			switch {
			case w[0] == "add" && w[1] == "account":
				parent := strings.TrimPrefix(w[3], "parent=")
				if !known[parent] {
					t.Errorf("%s: account %s before its parent %s", s.Name, w[2], parent)
				}
				known[w[2]] = true
				added = append(added, w[2])
			case w[0] == "add" && w[1] == "user":
				users[strings.TrimPrefix(w[3], "account=")] = true
			}
		}
		cpus := 0
		for _, j := range s.Usage {
			cpus += cpuCount(j.Args)
		}
		if cpus > prioNodes*8 {
			t.Errorf("%s: usage jobs ask %d CPUs at once, the cluster has %d", s.Name, cpus, prioNodes*8)
		}
		for _, j := range append(append([]PrioJob{s.Blocker}, s.Usage...), s.Queue...) {
			if !users[j.Account] {
				t.Errorf("%s: job under %s, which holds no user", s.Name, j.Account)
			}
		}
		if want := "delete account name=" + strings.Join(added, ",") + "\n"; s.Cleanup != want {
			t.Errorf("%s: cleanup %q, want %q", s.Name, s.Cleanup, want)
		}
	}
}

func cpuCount(args []string) int {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--ntasks="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// TestPriogenIsSeeded checks that a seed gives the same scenarios.
func TestPriogenIsSeeded(t *testing.T) {
	a := genPrioFile(rand.New(rand.NewSource(9)), 1, 5, 27001, false)
	b := genPrioFile(rand.New(rand.NewSource(9)), 1, 5, 27001, false)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different scenarios")
	}
}

// TestPickFieldsKeepsReplayFields checks the scontrol fields a recording keeps.
func TestPickFieldsKeepsReplayFields(t *testing.T) {
	out := "JobId=7 JobName=wrap\n   Priority=28448 Nice=1000 Account=a QOS=q2\n   JobState=PENDING Reason=Resources Dependency=(null)\n   SubmitTime=100 EligibleTime=100\n   AccrueTime=101\n   Command=(null)\n"
	got := pickFields(out)
	want := "JobId=7 JobState=PENDING Reason=Resources Priority=28448 Nice=1000 Account=a QOS=q2 SubmitTime=100 EligibleTime=100 AccrueTime=101"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAssocUsageReadsOneLiners checks the usage lines kept from
// `scontrol -o show assoc_mgr flags=assoc`.
func TestAssocUsageReadsOneLiners(t *testing.T) {
	in := []string{
		"Current Association Manager state",
		"ClusterName=sift Account=root UserName= Partition= Priority=0 ID=1 SharesRaw/Norm/Level/Factor=1/0.00/1/0.00 UsageRaw/Norm/Efctv=99.11/1.00/1.00 ParentAccount= Lineage=/",
		"ClusterName=sift Account=a1 UserName=root(0) Partition= Priority=0 ID=7 SharesRaw/Norm/Level/Factor=4/0.50/8/0.75 UsageRaw/Norm/Efctv=23.50/0.24/1.00 ParentAccount=a1(6)",
	}
	got := assocUsage(in)
	want := []string{"root||99.11", "a1|root|23.50"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
