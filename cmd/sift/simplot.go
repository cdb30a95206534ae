package main

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/nodesift/sift/sim"
)

// plotColor tells the second series of a plot from the first.
var plotColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}

// plotPoints bounds the points of a time series in a plot: a long trace
// has a sample per event, far more than an SVG needs.
const plotPoints = 2000

// writeSimPlots writes queue.svg (jobs pending and running over time),
// utilization.svg (share of the partition's CPUs busy over time) and
// wait-cdf.svg (the distribution of waits) into dir.
func writeSimPlots(dir string, res *sim.Result) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: %v", r)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pending, running, busy := thin(res.Series, res.Summary.CPUs)
	q := plot.New()
	q.Title.Text = "queue"
	q.X.Label.Text = "days"
	q.Y.Label.Text = "jobs"
	q.Add(plotter.NewGrid())
	if err := addLines(q, map[string]plotter.XYs{"pending": pending, "running": running}, "pending", "running"); err != nil {
		return err
	}
	u := plot.New()
	u.Title.Text = "utilization"
	u.X.Label.Text = "days"
	u.Y.Label.Text = "share of CPUs busy"
	u.Y.Min, u.Y.Max = 0, 1
	u.Add(plotter.NewGrid())
	if err := addLines(u, map[string]plotter.XYs{"busy": busy}, "busy"); err != nil {
		return err
	}
	c := plot.New()
	c.Title.Text = "wait time CDF"
	c.X.Label.Text = "wait (hours)"
	c.Y.Label.Text = "share of jobs"
	c.Y.Min, c.Y.Max = 0, 1
	c.Add(plotter.NewGrid())
	if err := addLines(c, map[string]plotter.XYs{"wait": waitCDF(res.Jobs)}, "wait"); err != nil {
		return err
	}
	for name, p := range map[string]*plot.Plot{"queue.svg": q, "utilization.svg": u, "wait-cdf.svg": c} {
		if err := p.Save(6*vg.Inch, 3.5*vg.Inch, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func addLines(p *plot.Plot, series map[string]plotter.XYs, order ...string) error {
	for _, name := range order {
		if len(series[name]) == 0 {
			continue
		}
		l, err := plotter.NewLine(series[name])
		if err != nil {
			return err
		}
		l.Color = plotter.DefaultLineStyle.Color
		if name == "running" {
			l.Color = plotColor
		}
		p.Add(l)
		if len(series) > 1 {
			p.Legend.Add(name, l)
		}
	}
	return nil
}

// thin turns the samples (a step function) into at most plotPoints points
// per series, keeping each bucket's largest value so that peaks show.
func thin(series []sim.Sample, cpus int) (pending, running, busy plotter.XYs) {
	if len(series) == 0 {
		return nil, nil, nil
	}
	t0, t1 := series[0].Time, series[len(series)-1].Time
	width := max((t1-t0)/plotPoints, 1)
	for i := 0; i < len(series); {
		b := (series[i].Time - t0) / width
		s := series[i]
		for i++; i < len(series) && (series[i].Time-t0)/width == b; i++ {
			s.Pending, s.Running, s.BusyCPUs = max(s.Pending, series[i].Pending), max(s.Running, series[i].Running), max(s.BusyCPUs, series[i].BusyCPUs)
		}
		x := float64(t0+b*width) / 86400
		pending = append(pending, plotter.XY{X: x, Y: float64(s.Pending)})
		running = append(running, plotter.XY{X: x, Y: float64(s.Running)})
		busy = append(busy, plotter.XY{X: x, Y: float64(s.BusyCPUs) / float64(max(cpus, 1))})
	}
	return pending, running, busy
}

// waitCDF is the empirical distribution of the started jobs' waits, at
// most plotPoints points.
func waitCDF(jobs []sim.JobRecord) plotter.XYs {
	var waits []float64
	for _, j := range jobs {
		if j.Wait >= 0 {
			waits = append(waits, float64(j.Wait)/3600)
		}
	}
	slices.Sort(waits)
	var out plotter.XYs
	step := max(len(waits)/plotPoints, 1)
	for i := 0; i < len(waits); i += step {
		out = append(out, plotter.XY{X: waits[i], Y: float64(i+1) / float64(len(waits))})
	}
	if n := len(waits); n > 0 {
		out = append(out, plotter.XY{X: waits[n-1], Y: 1})
	}
	return out
}

// writePolicyBars draws the sweep's policy comparison: mean wait and mean
// bounded slowdown per point, one group of bars per trace and cluster, one
// bar colour per policy and knob setting.
func writePolicyBars(path string, results []sweepResult) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: %v", r)
		}
	}()
	var groups, series []string
	cell := map[[2]string]*sim.Summary{}
	for i := range results {
		r := &results[i]
		g := r.Trace
		if r.Nodes != "" {
			g += " " + r.Nodes
		}
		s := r.Policy
		if k := knobsText(r.Knobs); k != "" {
			s += " " + k
		}
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if !slices.Contains(series, s) {
			series = append(series, s)
		}
		cell[[2]string{g, s}] = &r.Summary
	}
	// Each group gets the same share of the figure's width; its bars fill
	// four fifths of it.
	wd := vg.Length(min(max(6, 0.5*float64(len(groups)*len(series))+2), 40)) * vg.Inch
	width := 0.8 * (wd - vg.Inch) / vg.Length(len(groups)*len(series))
	panel := func(title, ylabel string, value func(*sim.Summary) float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.Y.Label.Text = ylabel
		p.Add(plotter.NewGrid())
		top := 0.0
		for k, s := range series {
			vals := make(plotter.Values, len(groups))
			for gi, g := range groups {
				if c := cell[[2]string{g, s}]; c != nil {
					vals[gi] = value(c)
					top = max(top, vals[gi])
				}
			}
			bars, err := plotter.NewBarChart(vals, width)
			if err != nil {
				return nil, err
			}
			bars.LineStyle.Width = 0
			bars.Color = plotutil.Color(k)
			bars.Offset = width * vg.Length(2*k-len(series)+1) / 2
			p.Add(bars)
			p.Legend.Add(s, bars)
		}
		// Room above the bars for the legend, and half a group either side.
		p.Legend.Top = true
		p.Y.Min, p.Y.Max = 0, max(top, 1e-9)*(1.15+0.12*float64(len(series)))
		p.NominalX(groups...)
		p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
		return p, nil
	}
	wait, err := panel("mean wait per point", "hours", func(s *sim.Summary) float64 { return s.MeanWait / 3600 })
	if err != nil {
		return err
	}
	bsld, err := panel("mean bounded slowdown per point", "bounded slowdown", func(s *sim.Summary) float64 { return s.MeanBSLD })
	if err != nil {
		return err
	}
	img := vgsvg.New(wd, 7*vg.Inch)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadY: vg.Millimeter * 6, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	plots := [][]*plot.Plot{{wait}, {bsld}}
	canvases := plot.Align(plots, tiles, draw.New(img))
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	var b bytes.Buffer
	if _, err := img.WriteTo(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
