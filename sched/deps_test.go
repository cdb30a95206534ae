package sched

import "testing"

// TestDependencies is _test_job_dependency_common: each dependency type
// against each state of the job depended on.
func TestDependencies(t *testing.T) {
	for _, c := range []struct {
		name  string
		kind  DepKind
		other State
		want  string
	}{
		{"after pending waits", After, Pending, "PENDING Dependency"},
		{"after running starts", After, Running, "RUNNING n2"},
		{"afterany running waits", AfterAny, Running, "PENDING Dependency"},
		{"afterany failed starts", AfterAny, Failed, "RUNNING n1"},
		{"afterok completed starts", AfterOK, Completed, "RUNNING n1"},
		{"afterok failed never", AfterOK, Failed, "PENDING DependencyNeverSatisfied"},
		{"afternotok cancelled starts", AfterNotOK, Cancelled, "RUNNING n1"},
		{"afternotok completed never", AfterNotOK, Completed, "PENDING DependencyNeverSatisfied"},
		{"afterok running waits", AfterOK, Running, "PENDING Dependency"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nodesN("n", 1, 2, "batch"), Builtin{}, DefaultConfig(), nil, false)
			switch c.other {
			case Pending:
				f.submit(1, 100, "nodes=1,time=10", func(j *Job) { j.Begin = 9999 })
			default:
				f.running(1, "batch", "n1", 0, 5000)
				if c.other != Running {
					if err := f.q.Finish(1, c.other, 900); err != nil {
						t.Fatal(err)
					}
				}
			}
			j := f.submit(2, 100, "nodes=1,time=10", func(j *Job) { j.Deps = []Dependency{{Kind: c.kind, Job: 1}} })
			f.pass(1000)
			if got := f.outcome(j); got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
}

// TestSingletonWaitsForSameNameAndUser: singleton waits while a job of the
// same name and user runs, or an earlier one pends.
func TestSingletonWaitsForSameNameAndUser(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 3, "batch"), Builtin{}, DefaultConfig(), nil, false)
	first := f.running(1, "batch", "n1", 0, 5000)
	single := f.submit(2, 100, "nodes=1,time=10", func(j *Job) { j.Name = first.Name; j.Deps = []Dependency{{Kind: Singleton}} })
	otherName := f.submit(3, 100, "nodes=1,time=10", func(j *Job) { j.Name = "else"; j.Deps = []Dependency{{Kind: Singleton}} })
	f.pass(1000)
	if got := f.outcome(single); got != "PENDING Dependency" {
		t.Errorf("same name: %s", got)
	}
	if got := f.outcome(otherName); got != "RUNNING n2" {
		t.Errorf("other name: %s", got)
	}
	if err := f.q.Finish(1, Completed, 1100); err != nil {
		t.Fatal(err)
	}
	f.pass(1200)
	if got := f.outcome(single); got != "RUNNING n1" {
		t.Errorf("after the first ends: %s", got)
	}
}

// TestDependencyAnyOf: with "?" one satisfied term suffices, and the job
// fails only when every term failed.
func TestDependencyAnyOf(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 3, "batch"), Builtin{}, DefaultConfig(), nil, false)
	f.running(1, "batch", "n1", 0, 5000)
	f.running(2, "batch", "n2", 0, 5000)
	if err := f.q.Finish(1, Failed, 900); err != nil {
		t.Fatal(err)
	}
	j := f.submit(3, 100, "nodes=1,time=10", func(j *Job) {
		j.DepsAny = true
		j.Deps = []Dependency{{Kind: AfterOK, Job: 1}, {Kind: AfterOK, Job: 2}}
	})
	f.pass(1000)
	if got := f.outcome(j); got != "PENDING Dependency" {
		t.Errorf("one failed, one running: %s", got)
	}
	if err := f.q.Finish(2, Completed, 1100); err != nil {
		t.Fatal(err)
	}
	f.pass(1200)
	if got := f.outcome(j); got != "RUNNING n1" {
		t.Errorf("one completed: %s", got)
	}
}
