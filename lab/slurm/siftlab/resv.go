package main

import (
	"strconv"
	"strings"
	"time"
)

// Resv is `scontrol show reservation` of a reservation a case made (times
// in epoch seconds, as SLURM_TIME_FORMAT=%s prints them).
type Resv struct {
	Name      string `json:"name"`
	Start     int64  `json:"start_epoch"`
	End       int64  `json:"end_epoch"`
	Nodes     string `json:"nodes,omitempty"`
	NodeCnt   int    `json:"node_cnt"`
	Partition string `json:"partition,omitempty"`
	Flags     string `json:"flags,omitempty"`
	Users     string `json:"users,omitempty"`
	Accounts  string `json:"accounts,omitempty"`
}

// createResv runs a "resv:ARGS" step: `scontrol create reservation ARGS`
// (ARGS split at spaces, @USER@ the lab's user), then reads the
// reservation back. Refused, the
// step's outcome is REJECTED with scontrol's message.
func (l *lab) createResv(j *Job) {
	spec := strings.ReplaceAll(strings.TrimPrefix(j.Action, "resv:"), "@USER@", currentUser())
	args := append([]string{"create", "reservation"}, strings.Fields(spec)...)
	asked := time.Now().Unix()
	out, errs, err := l.cmd("scontrol", args...)
	if err != nil {
		j.Slurm = Outcome{State: "REJECTED", Error: strings.TrimSpace(errs + out), AskedEpoch: asked}
		return
	}
	j.Slurm = Outcome{State: "CREATED", AskedEpoch: asked}
	name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "Reservation created:"))
	show, _, _ := l.cmd("scontrol", "show", "reservation", name)
	j.Resv = parseResv(show)
	// A new reservation is seen by the next scheduling pass.
	time.Sleep(300 * time.Millisecond)
}

// parseResv reads one reservation of `scontrol show reservation`.
func parseResv(out string) *Resv {
	r := &Resv{}
	for _, kv := range strings.Fields(out) {
		k, v, _ := strings.Cut(kv, "=")
		if v == "(null)" {
			v = ""
		}
		switch k {
		case "ReservationName":
			r.Name = v
		case "StartTime":
			r.Start, _ = strconv.ParseInt(v, 10, 64)
		case "EndTime":
			r.End, _ = strconv.ParseInt(v, 10, 64)
		case "Nodes":
			r.Nodes = v
		case "NodeCnt":
			r.NodeCnt, _ = strconv.Atoi(v)
		case "PartitionName":
			r.Partition = v
		case "Flags":
			r.Flags = v
		case "Users":
			r.Users = v
		case "Accounts":
			r.Accounts = v
		}
	}
	return r
}

// clearResvs cancels every job and deletes every reservation, so that
// clear finds the nodes idle (a node in an active reservation is not).
func (l *lab) clearResvs() {
	out, _, _ := l.cmd("scontrol", "show", "reservation", "-o")
	if !strings.Contains(out, "ReservationName=") {
		return
	}
	_, _, _ = l.cmd("scancel", "--full", "-u", currentUser())
	for range 100 {
		if q, _, _ := l.cmd("squeue", "-h", "-o", "%i"); strings.TrimSpace(q) == "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "ReservationName="); ok {
			name, _, _ = strings.Cut(name, " ")
			_, _, _ = l.cmd("scontrol", "delete", "reservation", name)
		}
	}
}
