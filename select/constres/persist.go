package constres

import (
	"fmt"

	"github.com/nodesift/sift/select/statefile"
)

// Kind names select/cons_tres in state files.
const Kind = "cons_tres"

// StateFile is the name of the plugin's state file in a state directory.
const StateFile = "select_cons_tres.state"

const (
	flagSuspended = 1 << iota
	flagPreemptable
)

// MarshalState encodes the plugin's jobs.
func (p *Plugin) MarshalState() []byte {
	var e statefile.Encoder
	e.U32(uint32(p.cl.N))
	jobs := sortedJobs(p.st)
	e.U32(uint32(len(jobs)))
	for _, j := range jobs {
		e.U32(j.id)
		e.String(j.partition)
		e.U32(uint32(j.nodeReq))
		e.U32(uint32(j.row))
		var f uint8
		if j.suspended {
			f |= flagSuspended
		}
		if j.preemptable {
			f |= flagPreemptable
		}
		e.U8(f)
		e.U32(j.priority)
		e.I64(j.start)
		e.I64(j.end)
		e.U32(uint32(len(j.nodes)))
		for i, id := range j.nodes {
			e.U32(id)
			e.U32(uint32(j.cpus[i]))
			e.U64(j.mem[i])
			e.U32(uint32(len(j.cores[i])))
			for _, c := range j.cores[i] {
				e.U32(uint32(c))
			}
			e.U32(uint32(len(j.gpus[i])))
			for _, g := range j.gpus[i] {
				e.U32(uint32(g))
			}
		}
	}
	return e.Buf
}

// RestoreState replaces the plugin's jobs with those encoded in b, or
// changes nothing and fails. Every job is charged again, so a state that
// would allocate a core, megabyte or GPU twice is refused.
func (p *Plugin) RestoreState(b []byte) error {
	d := statefile.NewDecoder(b)
	if n := d.U32(); d.Err() == nil && int(n) != p.cl.N {
		return fmt.Errorf("cons_tres: state is for %d nodes, the cluster has %d", n, p.cl.N)
	}
	st := newState(p.cl.N)
	n := d.Count(4 + 4 + 4 + 4 + 1 + 4 + 8 + 8 + 4)
	for range n {
		r := &record{id: d.U32(), partition: d.String(), nodeReq: int32(d.U32()), row: int(d.U32())}
		if r.row > 1<<16 {
			return fmt.Errorf("cons_tres: job %d: bad row %d in state", r.id, r.row)
		}
		f := d.U8()
		r.suspended, r.preemptable = f&flagSuspended != 0, f&flagPreemptable != 0
		r.priority = d.U32()
		r.start, r.end = d.I64(), d.I64()
		if r.nodeReq != crAvailable && r.nodeReq != crOneRow && r.nodeReq != crReserved {
			return fmt.Errorf("cons_tres: job %d: bad node requirement %d in state", r.id, r.nodeReq)
		}
		k := d.Count(4 + 4 + 8 + 4 + 4)
		for i := range k {
			id := d.U32()
			if d.Err() != nil {
				break
			}
			if int(id) >= p.cl.N || (i > 0 && id <= r.nodes[i-1]) {
				return fmt.Errorf("cons_tres: job %d: bad node id %d in state", r.id, id)
			}
			r.nodes = append(r.nodes, id)
			r.cpus = append(r.cpus, int(d.U32()))
			r.mem = append(r.mem, d.U64())
			var cores []int
			for range d.Count(4) {
				c := int(d.U32())
				if c >= p.cl.Cores(id) || (len(cores) > 0 && c <= cores[len(cores)-1]) {
					return fmt.Errorf("cons_tres: job %d: node %d: bad core %d in state", r.id, id, c)
				}
				cores = append(cores, c)
			}
			r.cores = append(r.cores, cores)
			ng := d.Count(4)
			if d.Err() == nil && ng != 0 && ng != len(p.cl.GPUs[id]) {
				return fmt.Errorf("cons_tres: job %d: node %d GPU entries do not match", r.id, id)
			}
			var gpus []int
			for range ng {
				gpus = append(gpus, int(d.U32()))
			}
			r.gpus = append(r.gpus, gpus)
		}
		if d.Err() != nil {
			break
		}
		if _, dup := st.jobs[r.id]; dup || k == 0 {
			return fmt.Errorf("cons_tres: job %d: duplicate or empty in state", r.id)
		}
		if err := p.addJob(st, r, true); err != nil {
			return fmt.Errorf("cons_tres: job %d in state: %w", r.id, err)
		}
	}
	if err := d.Done(); err != nil {
		return fmt.Errorf("cons_tres: %w", err)
	}
	if err := p.checkSharing(st); err != nil {
		return err
	}
	p.st = st
	return nil
}

// SaveState implements job.Plugin.
func (p *Plugin) SaveState(dir string, now int64) error {
	f := &statefile.File{Dir: dir, Name: StateFile}
	return f.Save(Kind, now, p.MarshalState())
}

// LoadState implements job.Plugin.
func (p *Plugin) LoadState(dir string) error {
	f := &statefile.File{Dir: dir, Name: StateFile}
	b, _, err := f.Load(Kind)
	if err != nil {
		return err
	}
	return p.RestoreState(b)
}

// checkSharing verifies what _verify_node_state guarantees on a live
// system, independently of the order the jobs started in: an exclusive job
// is alone on its nodes, and a non-sharing job never runs beside sharing
// jobs of another sharing partition.
func (p *Plugin) checkSharing(st *state) error {
	for _, j := range st.jobs {
		if j.suspended {
			continue
		}
		for _, id := range j.nodes {
			switch {
			case j.nodeReq == crReserved && st.jobCnt[id] > 1:
				return fmt.Errorf("cons_tres: state shares node %d with exclusive job %d", id, j.id)
			case j.nodeReq == crOneRow && p.sharesElsewhere(st, id, j.partition):
				return fmt.Errorf("cons_tres: state mixes sharing partitions on node %d", id)
			}
		}
	}
	return nil
}
