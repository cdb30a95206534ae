package linear

import (
	"fmt"

	"github.com/nodesift/sift/select/statefile"
)

// Kind names select/linear in state files.
const Kind = "linear"

// StateFile is the name of the plugin's state file in a state directory.
const StateFile = "select_linear.state"

const (
	flagExclusive = 1 << iota
	flagSuspended
	flagContiguous
	flagPreemptable
)

// MarshalState encodes the plugin's jobs.
func (p *Plugin) MarshalState() []byte {
	var e statefile.Encoder
	e.U32(uint32(p.cl.N))
	jobs := p.st.sortedJobs()
	e.U32(uint32(len(jobs)))
	for _, j := range jobs {
		e.U32(j.id)
		e.U8(flag(j.exclusive, flagExclusive) | flag(j.suspended, flagSuspended) | flag(j.contiguous, flagContiguous) | flag(j.preemptable, flagPreemptable))
		e.U32(j.priority)
		e.I64(j.start)
		e.I64(j.end)
		e.U32(uint32(len(j.nodes)))
		for i, id := range j.nodes {
			e.U32(id)
			e.U64(j.mem[i])
		}
	}
	return e.Buf
}

// RestoreState replaces the plugin's jobs with those encoded in b, or
// changes nothing and fails.
func (p *Plugin) RestoreState(b []byte) error {
	d := statefile.NewDecoder(b)
	if n := d.U32(); d.Err() == nil && int(n) != p.cl.N {
		return fmt.Errorf("linear: state is for %d nodes, the cluster has %d", n, p.cl.N)
	}
	st := newState(p.cl.N)
	st.clean.And(p.live)
	st.idle.And(p.live)
	n := d.Count(4 + 1 + 4 + 8 + 8 + 4)
	for range n {
		r := &record{id: d.U32()}
		f := d.U8()
		r.exclusive, r.suspended, r.contiguous, r.preemptable = f&flagExclusive != 0, f&flagSuspended != 0, f&flagContiguous != 0, f&flagPreemptable != 0
		r.priority = d.U32()
		r.start, r.end = d.I64(), d.I64()
		k := d.Count(12)
		for i := range k {
			id := d.U32()
			if d.Err() == nil && (int(id) >= p.cl.N || (i > 0 && id <= r.nodes[i-1])) {
				return fmt.Errorf("linear: job %d: bad node id %d in state", r.id, id)
			}
			r.nodes = append(r.nodes, id)
			r.mem = append(r.mem, d.U64())
			if int(id) < p.cl.N {
				r.totalCPUs += p.cl.CPUs[id]
			}
		}
		if d.Err() != nil {
			break
		}
		if _, dup := st.jobs[r.id]; dup || k == 0 {
			return fmt.Errorf("linear: job %d: duplicate or empty in state", r.id)
		}
		st.add(r)
	}
	if err := d.Done(); err != nil {
		return fmt.Errorf("linear: %w", err)
	}
	for id := range st.excl {
		if st.excl[id] > 1 || (st.excl[id] == 1 && st.run[id] > 1) || st.mem[id] > p.cl.MemoryMB[id] && p.cfg.TrackMemory {
			return fmt.Errorf("linear: state over-allocates node %d", id)
		}
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

func flag(on bool, bit uint8) uint8 {
	if on {
		return bit
	}
	return 0
}
