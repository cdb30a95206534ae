package inventory

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodesift/sift/index"
)

func parseConf(t *testing.T, text string, files map[string]string) (*Cluster, []Warning, error) {
	t.Helper()
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	return ParseSlurmConf("/etc/slurm/slurm.conf", []byte(text), read)
}

func TestParseSlurmConfNodes(t *testing.T) {
	tests := []struct {
		name string
		conf string
		want []index.Node
	}{
		{
			name: "topology given, keys in any case, Feature singular",
			conf: "nodename=n[1-2] cpus=8 sockets=2 corespersocket=4 threadspercore=1 realmemory=1000 feature=a,b WEIGHT=5 state=UNKNOWN\n",
			want: []index.Node{
				{Name: "n1", Rank: 0, Features: []string{"a", "b"}, CPUs: 8, Boards: 1, Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 1, MemoryMB: 1000, Weight: 5, State: "idle"},
				{Name: "n2", Rank: 1, Features: []string{"a", "b"}, CPUs: 8, Boards: 1, Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 1, MemoryMB: 1000, Weight: 5, State: "idle"},
			},
		},
		{
			name: "CPUs only: sockets inferred, defaults 1",
			conf: "NodeName=a CPUs=16\n",
			want: []index.Node{{Name: "a", CPUs: 16, Boards: 1, Sockets: 16, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1}},
		},
		{
			name: "nothing given: one CPU",
			conf: "NodeName=a\n",
			want: []index.Node{{Name: "a", CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1}},
		},
		{
			name: "SocketsPerBoard and CPUs equal to cores",
			conf: "NodeName=big CPUs=112 Boards=1 SocketsPerBoard=4 CoresPerSocket=28 ThreadsPerCore=2\n",
			want: []index.Node{{Name: "big", CPUs: 112, Boards: 1, Sockets: 4, CoresPerSocket: 28, ThreadsPerCore: 2, MemoryMB: 1, Weight: 1}},
		},
		{
			name: "CPUs inconsistent with topology reset to thread count",
			conf: "NodeName=a CPUs=7 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2\n",
			want: []index.Node{{Name: "a", CPUs: 8, Boards: 1, Sockets: 2, CoresPerSocket: 2, ThreadsPerCore: 2, MemoryMB: 1, Weight: 1}},
		},
		{
			name: "DEFAULT line applies to later lines only, later keys override",
			conf: "NodeName=x0\nNodeName=DEFAULT RealMemory=500 Features=f\nNodeName=x1\nNodeName=x2 RealMemory=9\n",
			want: []index.Node{
				{Name: "x0", Rank: 0, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1},
				{Name: "x1", Rank: 1, Features: []string{"f"}, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 500, Weight: 1},
				{Name: "x2", Rank: 2, Features: []string{"f"}, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 9, Weight: 1},
			},
		},
		{
			name: "gres with types, counts and socket bindings",
			conf: "NodeName=g Gres=gpu:a100:4(S:0-1),nic:2,fpga\n",
			want: []index.Node{{Name: "g", CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1,
				Gres: []index.Gres{{Name: "gpu", Type: "a100", Count: 4}, {Name: "nic", Count: 2}, {Name: "fpga", Count: 1}}}},
		},
		{
			name: "node table sorted by natural name order",
			conf: "NodeName=n10,n9\nNodeName=m1 State=DRAIN\nNodeName=n1 State=DOWN\n",
			want: []index.Node{
				{Name: "m1", Rank: 0, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1, State: "drain"},
				{Name: "n1", Rank: 1, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1, State: "down"},
				{Name: "n9", Rank: 2, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1},
				{Name: "n10", Rank: 3, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1},
			},
		},
		{
			name: "comments, escaped hash, continuation, spaces around =",
			conf: "# a comment\nNodeName = c1 \\\n  Features=x\\#1 # trailing comment\n",
			want: []index.Node{{Name: "c1", Features: []string{"x#1"}, CPUs: 1, Boards: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, MemoryMB: 1, Weight: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := parseConf(t, tt.conf, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				if tt.want[i].State == "" {
					tt.want[i].State = "idle"
				}
			}
			if diff := cmp.Diff(tt.want, c.Nodes); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSlurmConfPartitions(t *testing.T) {
	conf := `NodeName=n[1-4]
PartitionName=DEFAULT MaxTime=30 State=UP
PartitionName=debug Nodes=n[3-4],n1,n3 Default=YES DefaultTime=10:00 PriorityTier=5 OverSubscribe=FORCE:2 QOS=q AllowQoS=a,b DefMemPerCPU=100 MaxMemPerCPU=200 Hidden=yes
PartitionName=all Nodes=ALL MaxTime=1-00:00:00 State=DOWN Default=YES
`
	c, warns, err := parseConf(t, conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	want := []Partition{
		{Name: "debug", Nodes: []string{"n1", "n3", "n4"}, MaxTime: 30, DefaultTime: 10, PriorityTier: 5, OverSubscribe: "FORCE:2",
			QOS: "q", AllowQoS: []string{"a", "b"}, DefMemPerCPU: 100, MaxMemPerCPU: 200, State: "UP", Hidden: true},
		{Name: "all", Nodes: []string{"n1", "n2", "n3", "n4"}, Default: true, MaxTime: 1440, DefaultTime: -1, PriorityTier: 1, OverSubscribe: "NO", State: "DOWN"},
	}
	if diff := cmp.Diff(want, c.Partitions); diff != "" {
		t.Errorf("partitions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"debug", "all"}, c.Nodes[0].Partitions); diff != "" {
		t.Errorf("n1 partitions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"all"}, c.Nodes[1].Partitions); diff != "" {
		t.Errorf("n2 partitions (-want +got):\n%s", diff)
	}
}

func TestParseSlurmConfIncludeAndExtraConstraints(t *testing.T) {
	files := map[string]string{
		"/etc/slurm/nodes.conf":     "NodeName=a[1-2] Features=inc\n",
		"/etc/slurm/more/part.conf": "PartitionName=p Nodes=ALL\n",
	}
	c, _, err := parseConf(t, "SchedulerParameters=bf_window=10,Extra_Constraints\nInclude nodes.conf\ninclude /etc/slurm/more/part.conf\n", files)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 2 || c.Nodes[0].Features[0] != "inc" || len(c.Partitions) != 1 {
		t.Errorf("cluster = %+v", c)
	}
	if !c.ExtraConstraints {
		t.Error("extra_constraints not detected")
	}
}

func TestParseSlurmConfWarnsAboutUnknownKeys(t *testing.T) {
	_, warns, err := parseConf(t, "NodeName=a Bogus=1\nPartitionName=p Nodes=a Frobnicate=yes\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || warns[0].Line != 1 || !strings.Contains(warns[0].Msg, "Bogus") || warns[1].Line != 2 {
		t.Errorf("warnings = %v", warns)
	}
}

func TestParseSlurmConfErrorsNameFileLineAndKey(t *testing.T) {
	tests := []struct {
		name, conf, want string
	}{
		{"bad number", "NodeName=a\nNodeName=b CPUs=x\n", "/etc/slurm/slurm.conf:2: field \"CPUs\": expected a non-negative integer"},
		{"duplicate node", "NodeName=a\nNodeName=a\n", "/etc/slurm/slurm.conf:2: field \"NodeName\": duplicate node"},
		{"unknown partition node", "NodeName=a\nPartitionName=p Nodes=b\n", "/etc/slurm/slurm.conf:2: field \"Nodes\": partition names unknown node"},
		{"bad time", "NodeName=a\nPartitionName=p MaxTime=soon\n", "/etc/slurm/slurm.conf:2: field \"MaxTime\": invalid time"},
		{"bad oversubscribe", "PartitionName=p OverSubscribe=MAYBE\n", "field \"OverSubscribe\": expected NO"},
		{"missing include", "Include nope.conf\n", "/etc/slurm/slurm.conf:1: include:"},
		{"not key=value", "NodeName=a CPUs\n", "/etc/slurm/slurm.conf:1: expected Key=Value"},
		{"unterminated quote", "PartitionName=p TRESBillingWeights=\"CPU=1\n", "unterminated quoted value"},
		{"bad state", "NodeName=a State=SLEEPY\n", "field \"State\": unknown node state"},
		{"duplicate partition", "PartitionName=p\nPartitionName=p\n", "duplicate partition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseConf(t, tt.conf, nil)
			if err == nil {
				t.Fatal("no error")
			}
			var ie *Error
			if !errors.As(err, &ie) {
				t.Errorf("error %T is not an *inventory.Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseSlurmConfIncludeCycleFails(t *testing.T) {
	files := map[string]string{"/etc/slurm/a.conf": "Include a.conf\n"}
	if _, _, err := parseConf(t, "Include a.conf\n", files); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("err = %v", err)
	}
}

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"UNLIMITED", -1, true}, {"infinite", -1, true}, {"30", 1800, true}, {"30:15", 1815, true},
		{"1:00:00", 3600, true}, {"2-0", 172800, true}, {"2-3", 183600, true}, {"1-2:3", 93780, true},
		{"1-2:3:4", 93784, true}, {"", 0, false}, {"1:2:3:4", 0, false}, {"x", 0, false}, {"-5", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSeconds(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseSeconds(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if m, _ := ParseMinutes("0:30"); m != 1 {
		t.Errorf("ParseMinutes(0:30) = %d, want 1 (seconds round up)", m)
	}
}

func TestCirrusSlurmConfLoads(t *testing.T) {
	const path = "../../shared/data/clusters/epcc-cirrus-slurm.conf"
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared data not present")
	}
	c, warns, err := ReadSlurmConf(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(c.Nodes) != 407 {
		t.Fatalf("%d nodes, want 407", len(c.Nodes))
	}
	var cpus, gpus, heavy, cascade, skylake int
	for _, n := range c.Nodes {
		cpus += n.CPUs
		for _, g := range n.Gres {
			if g.Name == "gpu" {
				gpus += int(g.Count)
			}
		}
		if n.Weight == 1000 {
			heavy++
		}
		for _, f := range n.Features {
			switch f {
			case "cascade":
				cascade++
			case "skylake":
				skylake++
			}
		}
	}
	if cpus != 14880 || gpus != 152 || heavy != 88 || cascade != 36 || skylake != 2 {
		t.Errorf("cpus=%d gpus=%d weight1000=%d cascade=%d skylake=%d; want 14880 152 88 36 2", cpus, gpus, heavy, cascade, skylake)
	}
	if c.Nodes[0].Name != "highmem01" || c.Nodes[0].MemoryMB != 3095568 || c.Nodes[0].Sockets != 4 {
		t.Errorf("first node = %+v", c.Nodes[0])
	}
	parts := map[string]int{}
	for _, p := range c.Partitions {
		parts[p.Name] = len(p.Nodes)
	}
	want := map[string]int{"maintenance-all": 407, "maintenance-cpu": 368, "maintenance-gpu": 38, "maintenance-r1": 280,
		"maintenance-r2": 126, "maintenance-highmem": 1, "standard": 368, "highmem": 1, "gpu": 38, "tds": 4, "gpu-tds": 2}
	if diff := cmp.Diff(want, parts); diff != "" {
		t.Errorf("partition sizes (-want +got):\n%s", diff)
	}
}

func TestLoadDetectsEveryFormat(t *testing.T) {
	tests := []struct {
		file, format string
		nodes        int
	}{
		{"testdata/scontrol-nodes.json", "slurm-json", 3},
		{"testdata/sinfo.json", "slurm-json", 5},
	}
	for _, tt := range tests {
		c, _, err := LoadCluster(tt.file, "")
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if len(c.Nodes) != tt.nodes {
			t.Errorf("%s: %d nodes, want %d", tt.file, len(c.Nodes), tt.nodes)
		}
		if _, _, err := LoadCluster(tt.file, tt.format); err != nil {
			t.Errorf("%s as %s: %v", tt.file, tt.format, err)
		}
	}
	conf := []byte("# cluster\n  nodename = n[1-3] Features=f\npartitionname=p Nodes=ALL\n")
	c, _, err := ParseCluster("slurm.conf", conf, "")
	if err != nil || len(c.Nodes) != 3 || len(c.Partitions) != 1 {
		t.Errorf("slurm.conf not detected: %v %+v", err, c)
	}
	if _, _, err := ParseCluster("x", conf, "bogus"); err == nil || !strings.Contains(err.Error(), "unknown inventory format") {
		t.Errorf("bogus format: %v", err)
	}
}

func TestParseSlurmConfKeepsPriorityKeys(t *testing.T) {
	c, _, err := parseConf(t, `PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityFlags=NO_FAIR_TREE,MAX_TRES
FairShareDampeningFactor=2
AccountingStorageEnforce=limits
NodeName=n[1-2] CPUs=4
PartitionName=a Nodes=ALL PriorityJobFactor=10
PartitionName=b Nodes=ALL
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"prioritytype": "priority/multifactor", "priorityweightage": "1000",
		"priorityflags": "NO_FAIR_TREE,MAX_TRES", "fairsharedampeningfactor": "2", "accountingstorageenforce": "limits"}
	if !reflect.DeepEqual(c.Priority, want) {
		t.Errorf("priority keys %v, want %v", c.Priority, want)
	}
	if f := c.Partitions[0].PriorityJobFactor; f == nil || *f != 10 {
		t.Errorf("partition a PriorityJobFactor %v, want 10", f)
	}
	if c.Partitions[1].PriorityJobFactor != nil {
		t.Errorf("partition b PriorityJobFactor set without the key")
	}
}
