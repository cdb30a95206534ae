package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/valyala/fastjson"
)

// maxJSONBytes bounds what ReadSacctJSON reads: sacct --json of a month of
// a big site is hundreds of megabytes; more is a mistake or an attack.
const maxJSONBytes = 4 << 30

// ReadSacctJSON reads `sacct --json` output (Slurm's data_parser, v0.0.37
// to v0.0.46), plain or gzip-compressed: its "jobs" array, one Job per
// element (job steps are nested inside a job there, so none is skipped).
// Fields map as ReadSacct's do: job_id, name not kept, user, group,
// account, partition, qos; time/submission, time/start, time/end,
// time/elapsed, time/limit (minutes; {"set":false} and {"infinite":true}
// leave TimeLimit to Options.Estimate); required/CPUs, tres/requested and
// tres/allocated ({"type":"cpu"|"node"|"mem","count":N}), allocation_nodes;
// state/current (a string or a list of flags: the first is the state).
// Numbers may be plain or Slurm's {"set","infinite","number"} objects, as the
// data_parser versions differ. job_id is ID (as JobIDRaw is for ReadSacct);
// an array task's Name is "ARRAYID_TASK", as sacct's JobID prints it.
//
// Syntax errors are *ParseError at their byte; an error in a job names its
// index (Offset -1: the JSON parser does not keep value offsets).
func ReadSacctJSON(r io.Reader, name string, opt Options) (*Trace, error) {
	br, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(br, maxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxJSONBytes {
		return nil, &ParseError{File: name, Line: 1, Pos: posAt(maxJSONBytes), Msg: "more than 4 GiB of JSON", Err: ErrRange}
	}
	var jp fastjson.Parser
	v, err := jp.ParseBytes(data)
	if err != nil {
		return nil, jsonSyntaxError(name, data, err)
	}
	if errs := v.GetArray("errors"); len(errs) > 0 {
		return nil, &ParseError{File: name, Line: 1, Pos: posAt(-1), Msg: "sacct reported an error: " + clip([]byte(errs[0].String())), Err: ErrSyntax}
	}
	jobs := v.Get("jobs")
	if jobs == nil || jobs.Type() != fastjson.TypeArray {
		return nil, &ParseError{File: name, Line: 1, Pos: posAt(-1), Msg: `no "jobs" array (is this sacct --json output?)`, Err: ErrSyntax}
	}
	arr, _ := jobs.Array()
	tr := &Trace{Source: name, Jobs: make([]Job, 0, len(arr))}
	for i, jv := range arr {
		if err := jsonJob(tr, jv, opt); err != nil {
			return nil, &ParseError{File: name, Line: 0, Pos: posAt(-1), Field: fmt.Sprintf("jobs[%d]", i), Msg: err.Error(), Err: ErrSyntax}
		}
	}
	finishAbsolute(tr, opt)
	return tr, nil
}

// jsonSyntaxError finds the byte of a JSON syntax error with the standard
// library's decoder, which reports it (fastjson does not), and its line.
func jsonSyntaxError(name string, data []byte, perr error) error {
	off := -1
	var x any
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &x); errors.As(err, &se) {
		// Offset counts the bytes read, the bad one included.
		off = max(0, int(se.Offset)-1)
		if se.Offset >= int64(len(data)) {
			off = len(data) // unexpected end
		}
	}
	line := 0
	if off >= 0 {
		off = min(off, len(data))
		line = 1 + strings.Count(string(data[:off]), "\n")
	}
	msg := "invalid JSON"
	if se != nil {
		msg += ": " + se.Error()
	} else {
		msg += ": " + clip([]byte(perr.Error()))
	}
	return &ParseError{File: name, Line: line, Pos: posAt(off), Msg: msg, Err: ErrSyntax}
}

// jsonNumber reads a number that is plain or {"set","infinite","number"};
// ok is false when it is absent, unset or infinite.
func jsonNumber(v *fastjson.Value) (int64, bool, error) {
	if v == nil {
		return 0, false, nil
	}
	switch v.Type() {
	case fastjson.TypeNumber:
		f, _ := v.Float64()
		if f < -1<<53 || f > 1<<53 {
			return 0, false, errors.New("number out of range")
		}
		return int64(f), true, nil
	case fastjson.TypeObject:
		if set := v.Get("set"); set != nil && set.Type() == fastjson.TypeFalse {
			return 0, false, nil
		}
		if inf := v.Get("infinite"); inf != nil && inf.Type() == fastjson.TypeTrue {
			return 0, false, nil
		}
		return jsonNumber(v.Get("number"))
	case fastjson.TypeNull:
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("want a number, got %s", v.Type())
}

func jsonString(v *fastjson.Value, keys ...string) string {
	s := v.Get(keys...)
	if s == nil || s.Type() != fastjson.TypeString {
		return ""
	}
	return string(s.GetStringBytes())
}

func jsonJob(tr *Trace, v *fastjson.Value, opt Options) error {
	if v.Type() != fastjson.TypeObject {
		return fmt.Errorf("want an object, got %s", v.Type())
	}
	num := func(keys ...string) (int64, bool, error) {
		n, ok, err := jsonNumber(v.Get(keys...))
		if err != nil {
			return 0, false, fmt.Errorf("%s: %w", strings.Join(keys, "/"), err)
		}
		return n, ok, nil
	}
	var j Job
	id, ok, err := num("job_id")
	if err != nil {
		return err
	}
	if !ok || id < 0 {
		return errors.New("job_id: missing")
	}
	j.ID = id
	if task, ok, _ := num("array", "task_id"); ok && task >= 0 {
		if aid, ok, _ := num("array", "job_id"); ok && aid > 0 {
			j.Name = fmt.Sprintf("%d_%d", aid, task)
		}
	}
	submit, okSubmit, err := num("time", "submission")
	if err != nil {
		return err
	}
	start, okStart, err := num("time", "start")
	if err != nil {
		return err
	}
	end, okEnd, err := num("time", "end")
	if err != nil {
		return err
	}
	elapsed, okElapsed, err := num("time", "elapsed")
	if err != nil {
		return err
	}
	okStart = okStart && start > 0
	okEnd = okEnd && end > 0
	okSubmit = okSubmit && submit > 0
	limit, okLimit, err := num("time", "limit")
	if err != nil {
		return err
	}
	j.TimeLimit = Unknown
	if okLimit && limit > 0 {
		j.TimeLimit = limit * 60
	}
	req, _, err := num("required", "CPUs")
	if err != nil {
		return err
	}
	allocNodes, _, err := num("allocation_nodes")
	if err != nil {
		return err
	}
	reqT, err := jsonTRES(v.Get("tres", "requested"))
	if err != nil {
		return fmt.Errorf("tres/requested: %w", err)
	}
	allocT, err := jsonTRES(v.Get("tres", "allocated"))
	if err != nil {
		return fmt.Errorf("tres/allocated: %w", err)
	}
	j.Procs = int(min(firstPositive(req, reqT.cpu, allocT.cpu), 1<<31-1))
	j.AllocProcs = Unknown
	if allocT.cpu > 0 {
		j.AllocProcs = int(min(allocT.cpu, 1<<31-1))
	}
	j.Nodes = int(min(firstPositive(reqT.node, allocNodes, allocT.node), 1<<31-1))
	j.MemKB = Unknown
	if mb := firstPositive(reqT.memMB, allocT.memMB); mb > 0 && j.Procs > 0 {
		j.MemKB = mb * 1024 / int64(j.Procs)
	}
	state := ""
	if s := v.Get("state", "current"); s != nil {
		switch s.Type() {
		case fastjson.TypeString:
			state = string(s.GetStringBytes())
		case fastjson.TypeArray:
			if a, _ := s.Array(); len(a) > 0 {
				state = string(a[0].GetStringBytes())
			}
		}
	} else if s := v.Get("state"); s != nil && s.Type() == fastjson.TypeString {
		state = string(s.GetStringBytes())
	}
	j.Status = sacctStatus(state)
	j.User = jsonString(v, "user")
	j.Group = jsonString(v, "group")
	j.Account = jsonString(v, "account")
	j.Partition = jsonString(v, "partition")
	j.QOS = jsonString(v, "qos")

	run := int64(Unknown)
	if okElapsed && elapsed >= 0 {
		run = elapsed
	}
	if okStart && okEnd && end >= start && run <= 0 {
		run = end - start
	}
	if !okSubmit {
		submit = Unknown
	}
	if !okStart {
		start = Unknown
	}
	tr.Jobs = keepSacct(tr.Jobs, &tr.Skipped, j, submit, start, run, state, opt)
	return nil
}

// jsonTRES reads a TRES list: [{"type":"cpu","count":4}, ...], memory in MB.
func jsonTRES(v *fastjson.Value) (tresCounts, error) {
	var t tresCounts
	if v == nil || v.Type() == fastjson.TypeNull {
		return t, nil
	}
	arr, err := v.Array()
	if err != nil {
		return t, errors.New("want a list")
	}
	for _, it := range arr {
		n, ok, err := jsonNumber(it.Get("count"))
		if err != nil || !ok || n < 0 {
			continue
		}
		switch jsonString(it, "type") {
		case "cpu":
			t.cpu = n
		case "node":
			t.node = n
		case "mem":
			t.memMB = n
		}
	}
	return t, nil
}
