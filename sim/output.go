package sim

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// csvHeader is the per-job CSV's header; the reason history is one column
// of "t:Reason" items joined by ";".
var csvHeader = []string{"id", "submit", "eligible", "start", "end", "wait", "procs", "nodes", "cpus", "time_limit", "run", "state", "backfilled", "reasons"}

// WriteCSV writes one row per job (pandas.read_csv and R's read.csv read
// it as is).
func WriteCSV(w io.Writer, jobs []JobRecord) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	row := make([]string, len(csvHeader))
	var b strings.Builder
	for i := range jobs {
		j := &jobs[i]
		b.Reset()
		for k, c := range j.Reasons {
			if k > 0 {
				b.WriteByte(';')
			}
			b.WriteString(strconv.FormatInt(c.Time, 10))
			b.WriteByte(':')
			b.WriteString(c.Reason)
		}
		row[0] = strconv.FormatInt(j.ID, 10)
		row[1] = strconv.FormatInt(j.Submit, 10)
		row[2] = strconv.FormatInt(j.Eligible, 10)
		row[3] = strconv.FormatInt(j.Start, 10)
		row[4] = strconv.FormatInt(j.End, 10)
		row[5] = strconv.FormatInt(j.Wait, 10)
		row[6] = strconv.Itoa(j.Procs)
		row[7] = strconv.Itoa(j.Nodes)
		row[8] = strconv.Itoa(j.CPUs)
		row[9] = strconv.FormatInt(j.TimeLimit, 10)
		row[10] = strconv.FormatInt(j.Run, 10)
		row[11] = j.State
		row[12] = strconv.FormatBool(j.Backfilled)
		row[13] = b.String()
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteJSONL writes one JSON object per job and line
// (pandas.read_json(lines=True) reads it as is).
func WriteJSONL(w io.Writer, jobs []JobRecord) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range jobs {
		j := jobs[i]
		if j.Reasons == nil {
			j.Reasons = []ReasonChange{}
		}
		if err := enc.Encode(&j); err != nil {
			return err
		}
	}
	return bw.Flush()
}
