package constres

import (
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// taskCount is dist_tasks.c _get_task_count: the tasks to lay out over
// nhosts nodes. A job that gives neither ntasks nor ntasks-per-node has
// one task per node (Slurm's ncpus is then nhosts x cpus-per-task).
func taskCount(r *job.Request, nhosts int) int {
	switch {
	case r.NTasksPerNode > 0:
		return r.NTasksPerNode * nhosts
	case r.NTasks > 0:
		return r.NTasks
	}
	return nhosts
}

// distTasks lays the job's tasks over the chosen nodes and returns the CPUs
// each node keeps, at most avail[i] (the CPUs eval_nodes chose). It is
// _dist_tasks_compute_c_b (cyclic and block lay cores out alike) or, for
// --distribution=plane, _compute_plane_dist. ok is false when the tasks do
// not fit (ESLURM_BAD_TASK_COUNT).
func distTasks(r *job.Request, avail, vpus []int) (cpus []int, ok bool) {
	n := len(avail)
	cpus = make([]int, n)
	tasks := make([]int, n)
	cpt := r.CPUsPerTaskOr1()
	maxTasks := max(taskCount(r, n), 1)
	give := func(i int) {
		tasks[i]++
		for l := 0; l < cpt; l++ {
			if cpus[i] < avail[i] {
				cpus[i]++
			}
		}
	}
	atLimit := func(i int) bool { return r.NTasksPerNode > 0 && tasks[i] >= r.NTasksPerNode }
	tid := 0
	if r.PlaneSize > 0 {
		for tid < maxTasks {
			space := false
			for i := 0; i < n && tid < maxTasks; i++ {
				for k := 0; k < r.PlaneSize && tid < maxTasks; k++ {
					if cpus[i] < avail[i] {
						tid++
						give(i)
					}
				}
				if cpus[i] < avail[i] {
					space = true
				}
			}
			if !space && tid < maxTasks {
				return nil, false
			}
		}
		return cpus, true
	}
	// One task on each node first.
	for i := 0; i < n && tid < maxTasks; i++ {
		if avail[i] > 0 {
			tid++
			give(i)
		}
	}
	// Then fill the CPUs of cores already partly used (Slurm's test is on
	// the CPUs past a whole core, kept as written).
	for i := 0; i < n && tid < maxTasks; i++ {
		remTasks := (cpus[i] % vpus[i]) / cpt
		for t := 0; t < remTasks && tid < maxTasks; t++ {
			if avail[i]-cpus[i] < cpt || atLimit(i) {
				break
			}
			tid++
			give(i)
		}
	}
	// Then round-robin, a core's worth of tasks per node per pass.
	for tid < maxTasks {
		space := false
		for i := 0; i < n && tid < maxTasks; i++ {
			remTasks := max(vpus[i]/cpt, 1)
			for t := 0; t < remTasks && tid < maxTasks; t++ {
				if avail[i]-cpus[i] < cpt || atLimit(i) {
					break
				}
				tid++
				give(i)
				if avail[i]-cpus[i] >= cpt {
					space = true
				}
			}
		}
		if !space && tid < maxTasks {
			return nil, false
		}
	}
	return cpus, true
}

// taskCPUs is step 3 of _allocate_sc: of cpus usable CPUs on a node (cpc
// on each free core), those a job that does not hold whole nodes can use,
// given its ntasks-per-node and cpus-per-task. A task split over whole
// cores (splitTasks) is counted by the cores it takes, and Slurm then does
// not cap the count by ntasks-per-node.
func taskCPUs(r *job.Request, cpus, cpc int) int {
	cpt := r.CPUsPerTaskOr1()
	if splitTasks(r, cpc) {
		perTask := (cpt + cpc - 1) / cpc * cpc
		return cpus / perTask * cpt
	}
	if r.NTasksPerNode > 0 {
		cpus = min(cpus, r.NTasksPerNode*cpt)
	}
	return cpus / cpt * cpt
}

// socketCores is steps 2 to 4 of _allocate_sc for a job with
// ntasks-per-socket, sockets-per-node or cores-per-socket on a node of cps
// cores per socket and tpc threads per core, cpc of them usable: it clears
// in avail the free cores the job may not use and returns the CPUs it may
// use. Sockets with fewer free cores than cores-per-socket are left out,
// and the node when fewer than sockets-per-node remain. Each socket offers
// at most ntasks-per-socket tasks, and its cores are taken in order while
// the CPUs counted on it (a core's worth each) stay below
// ntasks-per-socket x cpus-per-task, until the node's task CPUs are used
// up. whole is an exclusive job, whose tasks ntasks-per-node does not cap.
func socketCores(r *job.Request, avail []bool, cps, tpc, cpc int, whole bool) int {
	cpt := r.CPUsPerTaskOr1()
	nps := r.NTasksPerSocket
	sockets := len(avail) / cps
	if nps > tpc*cps {
		clear(avail)
		return 0
	}
	free := make([]int, sockets)
	for c, a := range avail {
		if a {
			free[c/cps]++
		}
	}
	usable := 0
	for s, f := range free {
		if f < max(r.CoresPerSocket, 1) {
			free[s] = 0
			continue
		}
		usable++
	}
	if usable < max(r.SocketsPerNode, 1) {
		clear(avail)
		return 0
	}
	cpus, tasks := 0, 0
	for _, f := range free {
		cpus += f * cpc
		if nps > 0 {
			tasks += min(f*cpc, nps)
		} else {
			tasks += f * cpc
		}
	}
	if r.NTasksPerNode > 0 && !whole {
		tasks = min(tasks, r.NTasksPerNode)
	}
	switch {
	case cpt < 2:
		cpus = tasks
	case splitTasks(r, cpc):
		perTask := (cpt + cpc - 1) / cpc * cpc
		cpus = cpus / perTask * cpt
	default:
		cpus = min(tasks, cpus/cpt) * cpt
	}
	limit := cps * cpc
	if nps > 0 {
		limit = nps
		if cpt > 1 {
			limit *= cpt
		}
	}
	counted := make([]int, sockets)
	use := newCoreUse(r, cpc)
	got := 0
	for c, a := range avail {
		if !a {
			continue
		}
		s := c / cps
		if cpus == 0 || free[s] == 0 {
			avail[c] = false
			continue
		}
		if counted[s] == 0 {
			counted[s] = cpc
		} else if counted[s] >= limit {
			avail[c] = false
			continue
		} else {
			counted[s] += cpc
		}
		free[s]--
		u := use.take(cpus)
		cpus -= u
		got += u
	}
	return got
}

// avoidSockets is the ntasks-per-socket part of _cyclic_sync_core_bitmap:
// while the free CPUs (cpc per free core) exceed the cpus wanted, sockets
// are capped at ntasks-per-socket x cpus-per-task, then whole sockets the
// others can do without are left out.
func avoidSockets(r *job.Request, avail []bool, sockets, cps, cpus, cpc int) []bool {
	perSocket := r.NTasksPerSocket * r.CPUsPerTaskOr1()
	cnt := make([]int, sockets)
	total := 0
	for c, a := range avail {
		if a {
			cnt[c/cps] += cpc
			total += cpc
		}
	}
	for s := 0; s < sockets && total > cpus; s++ {
		if cnt[s] > perSocket {
			total -= cnt[s] - perSocket
			cnt[s] = perSocket
		}
	}
	avoid := make([]bool, sockets)
	for s := 0; s < sockets && total > cpus; s++ {
		if cnt[s] <= perSocket && total-cnt[s] >= cpus {
			avoid[s] = true
			total -= cnt[s]
		}
	}
	return avoid
}

// splitTasks reports whether each task takes whole cores of cpc usable CPUs
// and uses only the CPUs it needs of its last one (ntasks-per-core=1 with
// more CPUs per task than a core offers).
func splitTasks(r *job.Request, cpc int) bool {
	return r.NTasksPerCore == 1 && r.CPUsPerTaskOr1() > cpc
}

// coresFor is the cores that give cpus usable CPUs at cpc per core.
func coresFor(r *job.Request, cpus, cpc int) int {
	if splitTasks(r, cpc) {
		cpt := r.CPUsPerTaskOr1()
		return cpus / cpt * ((cpt + cpc - 1) / cpc)
	}
	return (cpus + cpc - 1) / cpc
}

// coreUse counts what taking one core of cpc usable CPUs uses of the cpus
// still wanted: a whole core, or the rest of the current task when tasks
// are split over cores (left tracks that task's CPUs not yet placed).
type coreUse struct {
	cpc, cpt int
	split    bool
	left     int
}

func newCoreUse(r *job.Request, cpc int) coreUse {
	return coreUse{cpc: cpc, cpt: r.CPUsPerTaskOr1(), split: splitTasks(r, cpc), left: r.CPUsPerTaskOr1()}
}

// take is what the next core takes of cpus.
func (u *coreUse) take(cpus int) int {
	if cpus < u.cpc {
		return cpus
	}
	if !u.split {
		return u.cpc
	}
	used := min(u.left, u.cpc)
	if u.left <= used {
		u.left = u.cpt
	} else {
		u.left -= used
	}
	return used
}

// gresTrim is gres_filter_sock_core for a GPU job on one node: the cores
// its tasks need there (all free CPUs in whole tasks, capped by
// ntasks-per-node and ntasks) are spread over the sockets by taking one
// core at a time from the socket with the most (the first on ties) until
// only those remain; each socket keeps its first free cores.
func gresTrim(r *job.Request, avail []bool, sockets, cps, vpus, free int) {
	cpt := r.CPUsPerTaskOr1()
	tasks := free * vpus / cpt
	if r.NTasksPerNode > 0 {
		tasks = min(tasks, r.NTasksPerNode)
	}
	if r.NTasks > 0 {
		tasks = min(tasks, r.NTasks)
	}
	need := (tasks*cpt + vpus - 1) / vpus
	cnt := make([]int, sockets)
	for c, a := range avail {
		if a {
			cnt[c/cps]++
		}
	}
	for tot := free; tot > need; tot-- {
		full := -1
		for s := range cnt {
			if cnt[s] > 0 && (full == -1 || cnt[s] > cnt[full]) {
				full = s
			}
		}
		if full == -1 {
			break
		}
		cnt[full]--
	}
	for c := range avail {
		if avail[c] {
			if cnt[c/cps] > 0 {
				cnt[c/cps]--
			} else {
				avail[c] = false
			}
		}
	}
}

// blockSync reports whether the cores of a node are chosen with
// _block_sync_core_bitmap rather than _cyclic_sync_core_bitmap (the tail of
// dist_tasks).
func (p *Plugin) blockSync(r *job.Request) bool {
	switch {
	case p.cfg.Units == UnitCPU:
		return true
	case r.PlaneSize > 0:
		return true
	case r.CoreDistSet:
		return r.Distribution == job.Block
	}
	return p.cfg.DefaultDistBlock
}

// syncCores chooses the cores of node id that give the job cpus CPUs among
// the free ones (free nil: all), and returns them in increasing order with
// the CPUs the job then holds there. ok is false when the free cores are
// too few.
func (p *Plugin) syncCores(r *job.Request, id uint32, cpus int, free bitset.Set) (cores []int, held int, ok bool) {
	lo := p.coreOff[id]
	sockets, cps := p.cl.Sockets[id], p.cl.CoresPerSocket[id]
	vpus := p.coreCPUs(r, id)
	sc := &p.cores
	avail := scratchBools(&sc.avail, sockets*cps)
	fc := 0
	for c := range avail {
		avail[c] = free == nil || free.Has(uint32(lo+c))
		if avail[c] {
			fc++
		}
	}
	if r.NTasksPerSocket > 0 || r.SocketsPerNode > 0 || r.CoresPerSocket > 0 {
		socketCores(r, avail, cps, p.cl.Threads[id], vpus, false)
	} else if r.GPUsPerNode == 0 && r.GPUsPerJob == 0 {
		// _allocate_sc keeps only the first free cores (in core order) that
		// hold the CPUs the tasks can use on the node; the sockets are
		// then chosen among those. Jobs with GRES are trimmed later, by
		// the GRES filter, instead.
		keep := coresFor(r, taskCPUs(r, fc*vpus, vpus), vpus)
		for c := range avail {
			if avail[c] {
				if keep == 0 {
					avail[c] = false
				} else {
					keep--
				}
			}
		}
	} else if p.cfg.Units != UnitSocket {
		gresTrim(r, avail, sockets, cps, vpus, fc)
	}
	var taken []bool
	use := newCoreUse(r, vpus)
	if p.blockSync(r) {
		taken, ok = blockCores(avail, sockets, cps, cpus, coresFor(r, cpus, vpus), &use, p.cfg.Units == UnitSocket, sc)
	} else {
		var avoid []bool
		if r.NTasksPerSocket > 0 {
			avoid = avoidSockets(r, avail, sockets, cps, cpus, vpus)
		}
		taken, ok = cyclicCores(avail, avoid, sockets, cps, cpus, &use, p.cfg.Units == UnitSocket, sc)
	}
	if !ok {
		return nil, 0, false
	}
	n := 0
	for _, t := range taken {
		if t {
			n++
		}
	}
	cores = make([]int, 0, n)
	for c, t := range taken {
		if t {
			cores = append(cores, c)
		}
	}
	held = cpus
	if p.cfg.Units != UnitCPU {
		held = len(cores) * p.cl.Threads[id]
	}
	return cores, held, true
}

// blockCores is _block_sync_core_bitmap on one board: sockets are taken
// best fit (the smallest socket that alone holds the req cores, else the
// largest), cores in order within each.
func blockCores(avail []bool, sockets, cps, cpus, req int, use *coreUse, wholeSockets bool, sc *coreScratch) ([]bool, bool) {
	if sc == nil {
		sc = &coreScratch{}
	}
	count := scratchInts(&sc.count, sockets)
	for c, a := range avail {
		if a {
			count[c/cps]++
		}
	}
	taken := scratchBools(&sc.taken, len(avail))
	used := scratchBools(&sc.used, sockets)
	for cpus > 0 {
		best, bestCores, bestSuff := 0, 0, false
		for s := 0; s < sockets; s++ {
			suff := count[s] >= req
			if bestCores == 0 || (suff && !bestSuff) || (suff && count[s] < bestCores) || (!suff && count[s] > bestCores) {
				best, bestCores, bestSuff = s, count[s], suff
			}
		}
		if bestCores == 0 {
			break
		}
		used[best] = true
		for c := best * cps; c < (best+1)*cps; c++ {
			switch {
			case cpus == 0:
				taken[c] = wholeSockets
			case avail[c]:
				count[best]--
				taken[c] = true
				cpus -= use.take(cpus)
			default:
				taken[c] = wholeSockets
			}
		}
	}
	return taken, cpus == 0
}

// cyclicCores is _cyclic_sync_core_bitmap: with more than one CPU per task
// the sockets are first filled in order with whole tasks, then one core is
// taken from each socket in turn.
func cyclicCores(avail, avoid []bool, sockets, cps, cpus int, use *coreUse, wholeSockets bool, sc *coreScratch) ([]bool, bool) {
	if sc == nil {
		sc = &coreScratch{}
	}
	vpus, cpt := use.cpc, use.cpt
	start := scratchInts(&sc.start, sockets)
	end := scratchInts(&sc.end, sockets)
	used := scratchBools(&sc.used, sockets)
	taken := scratchBools(&sc.taken, len(avail))
	for s := range start {
		start[s], end[s] = s*cps, (s+1)*cps
	}
	if cpt > 1 && avoid == nil {
		for s := 0; s < sockets && cpus > 0; s++ {
			cnt := 0
			for c := start[s]; c < end[s]; c++ {
				if avail[c] {
					cnt += vpus
				}
			}
			cnt -= cnt % cpt
			for ; start[s] < end[s] && cnt > 0 && cpus > 0; start[s]++ {
				if avail[start[s]] {
					used[s] = true
					taken[start[s]] = true
					u := use.take(cpus)
					if cnt < vpus {
						cnt = 0
					} else {
						cnt -= u
					}
					cpus -= u
				}
			}
		}
	}
	for cpus > 0 {
		prev := cpus
		for s := 0; s < sockets && cpus > 0; s++ {
			if avoid != nil && avoid[s] {
				continue
			}
			for start[s] < end[s] && !avail[start[s]] {
				start[s]++
			}
			if start[s] == end[s] {
				continue
			}
			used[s] = true
			taken[start[s]] = true
			cpus = max(cpus-vpus, 0)
			start[s]++
		}
		if prev == cpus {
			return nil, false
		}
	}
	if wholeSockets {
		// Slurm marks the rest of a used socket from where its scan
		// stopped; cores the scan passed over stay out.
		for s := range used {
			if used[s] {
				for c := start[s]; c < end[s]; c++ {
					taken[c] = true
				}
			}
		}
	}
	return taken, true
}

// coreScratch is memory reused from one node's core choice to the next
// (nil in blockCores and cyclicCores: fresh memory).
type coreScratch struct {
	avail, taken, used []bool
	start, end, count  []int
}

// scratchBools is *b resized to n, all false.
func scratchBools(b *[]bool, n int) []bool {
	if cap(*b) < n {
		*b = make([]bool, n)
	}
	s := (*b)[:n]
	clear(s)
	return s
}

// scratchInts is *b resized to n, all zero.
func scratchInts(b *[]int, n int) []int {
	if cap(*b) < n {
		*b = make([]int, n)
	}
	s := (*b)[:n]
	clear(s)
	return s
}
