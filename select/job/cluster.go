package job

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
)

// Partition is the selection-relevant configuration of one partition.
type Partition struct {
	// Nodes are the partition's node ids.
	Nodes *roaring.Bitmap
	// OverSubscribe is the number of jobs that may share a core (cons_tres
	// rows) or node (linear); 1 is OverSubscribe=NO.
	OverSubscribe int
	// Force is OverSubscribe=FORCE: every job shares.
	Force bool
	// Exclusive is OverSubscribe=EXCLUSIVE: every job gets whole nodes.
	Exclusive bool
	// DefMemPerCPU and MaxMemPerCPU (MB) are the partition's memory
	// default and limit; 0 defers to the cluster's.
	DefMemPerCPU, MaxMemPerCPU uint64
	// PriorityTier orders partitions that share nodes.
	PriorityTier uint32
}

// ParseOverSubscribe reads a partition's OverSubscribe setting (NO,
// EXCLUSIVE, YES[:N], FORCE[:N]; N defaults to 4 as in Slurm) into p.
func (p *Partition) ParseOverSubscribe(v string) error {
	kind, count, hasCount := strings.Cut(strings.ToUpper(strings.TrimSpace(v)), ":")
	n := 4
	if hasCount {
		c, err := strconv.Atoi(count)
		if err != nil || c < 1 || c > maxLayout {
			return fmt.Errorf("OverSubscribe %q: expected a job count from 1 to %d after the colon", v, maxLayout)
		}
		n = c
	}
	p.OverSubscribe, p.Force, p.Exclusive = 1, false, false
	switch kind {
	case "", "NO":
	case "EXCLUSIVE":
		p.Exclusive = true
	case "YES":
		p.OverSubscribe = n
	case "FORCE":
		p.OverSubscribe, p.Force = n, true
	default:
		return fmt.Errorf("OverSubscribe %q: expected NO, EXCLUSIVE, YES[:N] or FORCE[:N]", v)
	}
	return nil
}

// ApplyMemoryPolicy gives r the memory slurmctld gives a job at submit: a
// job that asks for no memory gets DefMemPerCPU of its partition (else
// defMemPerCPU, the cluster's) per CPU, or the whole node when neither is
// set (job_mgr.c _get_def_mem); a per-CPU request above MaxMemPerCPU
// (partition's, else maxMemPerCPU) raises cpus-per-task and lowers the
// per-CPU memory by the same factor (job_mgr.c _valid_pn_min_mem).
func (r *Request) ApplyMemoryPolicy(c *Cluster, defMemPerCPU, maxMemPerCPU uint64) {
	if part := c.Partitions[r.Partition]; part != nil {
		if part.DefMemPerCPU > 0 {
			defMemPerCPU = part.DefMemPerCPU
		}
		if part.MaxMemPerCPU > 0 {
			maxMemPerCPU = part.MaxMemPerCPU
		}
	}
	if !r.MemPerNodeSet && r.MemPerCPU == 0 && defMemPerCPU > 0 {
		r.MemPerCPU = defMemPerCPU
	}
	if maxMemPerCPU == 0 {
		return
	}
	if r.MemPerCPU == 0 {
		r.raiseCPUsForNodeMemory(c, maxMemPerCPU)
		return
	}
	if r.MemPerCPU <= maxMemPerCPU {
		return
	}
	ratio := (r.MemPerCPU + maxMemPerCPU - 1) / maxMemPerCPU
	if ratio > maxLayout*maxLayout {
		ratio = maxLayout * maxLayout
	}
	r.CPUsPerTask = r.CPUsPerTaskOr1() * int(ratio)
	r.MemPerCPU = (r.MemPerCPU + ratio - 1) / ratio
}

// Cluster is the per-node resources and state of a snapshot, as select
// plugins read them. Slices are indexed by node id; removed ids hold zeros.
type Cluster struct {
	// Snap is the snapshot the cluster was derived from.
	Snap *index.Snapshot
	// N is the id bound: every node id is below it.
	N int
	// CPUs is each node's CPU count; Sockets and CoresPerSocket its layout
	// (Sockets counts boards x sockets). Threads is the schedulable CPUs per
	// core, Slurm's node tpc: 1 when the cores are at least the CPUs (the
	// node schedules cores, as Cirrus's CPUs=36 with 2x18 cores and 2 threads
	// per core does), else ThreadsPerCore.
	CPUs, Sockets, CoresPerSocket, Threads []int
	// ConfThreads is each node's configured ThreadsPerCore (Slurm's
	// node threads), which Threads may have reduced to 1.
	ConfThreads []int
	// MemoryMB is each node's real memory.
	MemoryMB []uint64
	// GPUs holds each node's GPU GRES (name "gpu"), with types.
	GPUs [][]index.Gres
	// Weight is each node's scheduling weight; lower is used first.
	Weight []uint32
	// Idle, Mixed, Allocated, Down and Drain are the node base states.
	Idle, Mixed, Allocated, Down, Drain *roaring.Bitmap
	// Usable is the live nodes that are neither down nor drained.
	Usable *roaring.Bitmap
	// Partitions maps partition names to their nodes and sharing settings.
	Partitions map[string]*Partition
	// withCPUs is the nodes NewCluster gave a CPU (nil for a Cluster made
	// otherwise), for FilterNodes' shortcut; CPUs does not change after.
	withCPUs *roaring.Bitmap
}

// Bounds on a node's layout.
const (
	maxLayout       = 1 << 12
	maxCoresPerNode = 1 << 16
)

// NewCluster derives per-node resources and state bitmaps from s. Missing
// layout fields default as in Slurm: one board, one socket, one thread per
// core, and cores enough for the CPUs.
func NewCluster(s *index.Snapshot) *Cluster {
	n := int(s.IDBound())
	c := &Cluster{
		Snap: s, N: n,
		CPUs: make([]int, n), Sockets: make([]int, n), CoresPerSocket: make([]int, n), Threads: make([]int, n),
		ConfThreads: make([]int, n),
		MemoryMB:    make([]uint64, n), GPUs: make([][]index.Gres, n), Weight: make([]uint32, n),
		Idle: roaring.New(), Mixed: roaring.New(), Allocated: roaring.New(), Down: roaring.New(), Drain: roaring.New(),
		Usable: roaring.New(), Partitions: map[string]*Partition{}, withCPUs: roaring.New(),
	}
	it := s.Live().Iterator()
	for it.HasNext() {
		id := it.Next()
		nd, _ := s.Node(id)
		// Layouts are clamped so that a corrupt inventory cannot make the
		// per-core bitmaps unbounded.
		boards := min(max(nd.Boards, 1), maxLayout)
		sockets := min(max(nd.Sockets, 1)*boards, maxLayout)
		threads := min(max(nd.ThreadsPerCore, 1), maxLayout)
		cores := min(nd.CoresPerSocket, maxLayout)
		cpus := min(nd.CPUs, maxLayout*maxLayout)
		if cores <= 0 {
			cores = max(cpus/(sockets*threads), 1)
		}
		if sockets*cores > maxCoresPerNode {
			cores = max(maxCoresPerNode/sockets, 1)
		}
		if cpus <= 0 {
			cpus = sockets * cores * threads
		}
		c.ConfThreads[id] = threads
		// node_conf.c build_all_nodelist's tpc rule.
		if sockets*cores >= cpus {
			threads = 1
		}
		c.CPUs[id], c.Sockets[id], c.CoresPerSocket[id], c.Threads[id] = cpus, sockets, cores, threads
		if cpus >= 1 {
			c.withCPUs.Add(id)
		}
		c.MemoryMB[id] = nd.MemoryMB
		c.Weight[id] = nd.Weight
		for _, g := range nd.Gres {
			if g.Name == "gpu" && g.Count > 0 {
				c.GPUs[id] = append(c.GPUs[id], g)
			}
		}
		switch strings.ToLower(nd.State) {
		case "", "idle":
			c.Idle.Add(id)
		case "mixed", "mix":
			c.Mixed.Add(id)
		case "allocated", "alloc":
			c.Allocated.Add(id)
		case "down":
			c.Down.Add(id)
		case "drain", "drained", "draining", "drng":
			c.Drain.Add(id)
		default:
			// An unknown state is not trusted with jobs.
			c.Down.Add(id)
		}
		for _, p := range nd.Partitions {
			part := c.Partitions[p]
			if part == nil {
				part = &Partition{Nodes: roaring.New(), OverSubscribe: 1}
				c.Partitions[p] = part
			}
			part.Nodes.Add(id)
		}
	}
	c.Usable = s.Live().Clone()
	c.Usable.AndNot(c.Down)
	c.Usable.AndNot(c.Drain)
	return c
}

// Cores is node id's core count.
func (c *Cluster) Cores(id uint32) int { return c.Sockets[id] * c.CoresPerSocket[id] }

// GPUCount is node id's count of GPUs of type typ (any type if empty).
func (c *Cluster) GPUCount(id uint32, typ string) int {
	n := 0
	for _, g := range c.GPUs[id] {
		if typ == "" || g.Type == typ {
			n += int(g.Count)
		}
	}
	return n
}

// MaxShare is the OverSubscribe count of the partition named name (1 when
// it is unknown or not shared).
func (c *Cluster) MaxShare(name string) int {
	if p := c.Partitions[name]; p != nil && p.OverSubscribe > 1 {
		return p.OverSubscribe
	}
	return 1
}

// ResolveError is a node list naming a node the cluster does not have.
type ResolveError struct {
	List, Name string
}

// Error names the list and the unknown node.
func (e *ResolveError) Error() string {
	return fmt.Sprintf("node list %q: unknown node %q", e.List, e.Name)
}

// Resolve fills r.RequiredSet and r.ExcludedSet from r.Required and
// r.Excluded, Slurm hostlists such as n[1-4,7],gpu01. Every name must be a
// node of the cluster, as Slurm requires.
func (r *Request) Resolve(c *Cluster) error {
	var err error
	if r.RequiredSet, err = resolveList(c, r.Required); err != nil {
		return err
	}
	if r.ExcludedSet, err = resolveList(c, r.Excluded); err != nil {
		return err
	}
	if err := r.checkPlane(); err != nil {
		return err
	}
	r.narrowNodeList(c)
	if err := r.checkGPUs(); err != nil {
		return err
	}
	if r.NTasks == 0 && r.NTasksPerNode > 0 {
		// job_mgr.c _set_tasks: slurmctld gives a job with
		// ntasks-per-node but no ntasks a task count for its minimum
		// node count.
		r.NTasks = min(max(r.MinNodes, 1)*r.NTasksPerNode, 1<<24)
	}
	return nil
}

// narrowNodeList applies what sbatch and _job_create do with a node list
// longer than the node count. Without -N, sbatch asks for as many nodes
// as the list names, but no more than the tasks (_opt_verify: "can't run
// 2 processes on 3 nodes"); a list naming more nodes than that minimum
// then becomes, in _job_create, the exclusion of every other node rather
// than a list of required nodes (-N1 -w n[1-3] runs on one of them).
func (r *Request) narrowNodeList(c *Cluster) {
	if r.RequiredSet == nil || r.RequiredSet.IsEmpty() {
		return
	}
	n := int(r.RequiredSet.GetCardinality())
	minN := r.MinNodes
	if minN == 0 {
		minN = n
		if r.NTasks > 0 && r.NTasks < minN {
			minN = r.NTasks
			r.MinNodes, r.MaxNodes, r.ReqNodes = minN, minN, minN
		}
	}
	if n <= minN {
		return
	}
	ex := c.Snap.Live().Clone()
	ex.AndNot(r.RequiredSet)
	if r.ExcludedSet != nil {
		ex.Or(r.ExcludedSet)
	}
	r.ExcludedSet, r.RequiredSet = ex, nil
}

// ErrGPUsBelowNodes is a per-job GPU count below the minimum node count.
var ErrGPUsBelowNodes = errors.New("--gpus is below the minimum node count")

// checkGPUs is sbatch's check that every node can get a GPU of the job's
// per-job count (--gpus < -N).
func (r *Request) checkGPUs() error {
	if r.GPUsPerJob > 0 && r.GPUsPerJob < r.MinNodes {
		return fmt.Errorf("%w: %d GPUs, %d nodes", ErrGPUsBelowNodes, r.GPUsPerJob, r.MinNodes)
	}
	return nil
}

// ErrPlaneTasks is a plane distribution with too few tasks for its nodes.
var ErrPlaneTasks = errors.New("too few tasks for the requested plane distribution and node count")

// checkPlane is sbatch's own check of -m plane=N (opt.c _opt_verify): it
// refuses a job whose tasks (1 when not given) cannot fill a plane on
// every node but the last. The minimum node count defaults to the
// required nodes.
func (r *Request) checkPlane() error {
	if r.PlaneSize <= 0 {
		return nil
	}
	n := max(r.NTasks, 1)
	minN := r.MinNodes
	if minN == 0 && r.RequiredSet != nil {
		minN = int(r.RequiredSet.GetCardinality())
	}
	if minN <= 0 || n/r.PlaneSize < minN {
		if (minN-1)*r.PlaneSize >= n {
			return fmt.Errorf("%w: %d tasks, plane=%d, %d nodes", ErrPlaneTasks, n, r.PlaneSize, minN)
		}
	}
	return nil
}

func resolveList(c *Cluster, list string) (*roaring.Bitmap, error) {
	out := roaring.New()
	if strings.TrimSpace(list) == "" {
		return out, nil
	}
	l, err := hostlist.Parse(hostlist.Slurm, list)
	if err != nil {
		return nil, fmt.Errorf("node list %q: %w", list, err)
	}
	var unknown string
	l.Each(func(name string) bool {
		id, ok := c.Snap.ID(name)
		if !ok {
			unknown = name
			return false
		}
		out.Add(id)
		return true
	})
	if unknown != "" {
		return nil, &ResolveError{List: list, Name: unknown}
	}
	return out, nil
}

// HoldInventoryBusy removes from Usable the nodes the inventory reports as
// in use by jobs the plugin does not know: allocated nodes, and mixed nodes
// too when the plugin allocates whole nodes. They stay candidates for
// test-only questions.
func (c *Cluster) HoldInventoryBusy(wholeNodes bool) {
	c.Usable.AndNot(c.Allocated)
	if wholeNodes {
		c.Usable.AndNot(c.Mixed)
	}
}

// raiseCPUsForNodeMemory is _valid_pn_min_mem for a per-node request (or
// the whole node, read as the memory of the partition's first node) under a
// per-CPU limit: the job needs ceil(mem/limit) CPUs per node, spread over
// its tasks by raising cpus-per-task.
func (r *Request) raiseCPUsForNodeMemory(c *Cluster, maxMemPerCPU uint64) {
	mem := r.MemPerNode
	if !r.MemPerNodeSet || mem == 0 {
		mem = 0
		if part := c.Partitions[r.Partition]; part != nil && !part.Nodes.IsEmpty() {
			mem = c.MemoryMB[part.Nodes.Minimum()]
		}
	}
	minCPUs := (mem + maxMemPerCPU - 1) / maxMemPerCPU
	if minCPUs > maxLayout*maxLayout {
		minCPUs = maxLayout * maxLayout
	}
	need := int(minCPUs)
	if need <= r.CPUsPerTaskOr1()*max(r.NTasksPerNode, 1) {
		return
	}
	pn := need
	switch {
	case r.NTasksPerNode > 0:
		r.CPUsPerTask = (need + r.NTasksPerNode - 1) / r.NTasksPerNode
		pn = max(r.CPUsPerTask*r.NTasksPerNode, pn)
	case r.NTasks > 0:
		// The CPUs per node the job then needs follow from its tasks
		// over its minimum node count (1 when not given), which can
		// exceed every node's CPUs.
		nodes := max(r.MinNodes, 1)
		r.CPUsPerTask = (need*nodes + r.NTasks - 1) / r.NTasks
		pn = r.CPUsPerTask * r.NTasks / nodes
		// The job's min_cpus becomes that per-node count too, so the
		// first nodes no longer take all the tasks' CPUs and a layout
		// that then fails leaves the job pending, as in Slurm.
		r.MinCPUsTotal = pn
	default:
		r.CPUsPerTask = need
	}
	r.MinCPUsPerNode = pn
}

// FilterNodes removes from cand the nodes whose configuration can never
// hold the job, whatever the select plugin (node_scheduler.c
// _build_node_list): fewer CPUs than cpus-per-task x ntasks-per-node
// (counting ntasks-per-core x cpus-per-task on every core, as
// adjust_cpus_nppcu does), less real memory than the job asks per node,
// fewer sockets, cores per socket or threads per core than it asks
// (_valid_node_feature's multi-core test), or no GPUs for a job that asks
// for GPUs. A per-CPU request is compared per CPU, as Slurm does; memory
// counts here even when it is not a consumable resource.
func (r *Request) FilterNodes(c *Cluster, cand *roaring.Bitmap) {
	minCPUs := max(r.CPUsPerTaskOr1()*max(r.NTasksPerNode, 1), r.MinCPUsPerNode)
	mem := r.MemPerCPU
	if mem == 0 && r.MemPerNodeSet {
		mem = r.MemPerNode
	}
	gpus := r.GPUsPerNode > 0 || r.GPUsPerJob > 0
	if c.withCPUs != nil && minCPUs <= 1 && mem == 0 && !gpus && r.NTasksPerCore <= 0 &&
		r.SocketsPerNode <= 0 && r.CoresPerSocket <= 0 && r.ThreadsPerCore <= 0 {
		// A request of one CPU and no layout, memory or GPU: only a node
		// without a CPU (or past the cluster) fails the scan below.
		cand.And(c.withCPUs)
		return
	}
	r.filterScan(c, cand, minCPUs, mem, gpus)
}

// filterScan is FilterNodes node by node.
func (r *Request) filterScan(c *Cluster, cand *roaring.Bitmap, minCPUs int, mem uint64, gpus bool) {
	drop := roaring.New()
	it := cand.Iterator()
	for it.HasNext() {
		id := it.Next()
		// A GPU job never uses a node without GPUs (of its type), even
		// when it counts GPUs per job (_can_job_run_on_node).
		if int(id) >= c.N {
			drop.Add(id)
			continue
		}
		cpus := c.CPUs[id]
		if r.NTasksPerCore > 0 {
			cpus = max(cpus, c.Sockets[id]*c.CoresPerSocket[id]*min(r.NTasksPerCore*r.CPUsPerTaskOr1(), 1<<30))
		}
		if cpus < minCPUs || c.MemoryMB[id] < mem || gpus && c.GPUCount(id, r.GPUType) == 0 ||
			r.SocketsPerNode > c.Sockets[id] || r.CoresPerSocket > c.CoresPerSocket[id] || r.ThreadsPerCore > c.ConfThreads[id] {
			drop.Add(id)
		}
	}
	cand.AndNot(drop)
}
