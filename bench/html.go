package bench

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// engineColors gives every contestant the same color in every plot.
var engineColors = map[string]color.RGBA{
	"sift":          {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"reference":     {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"expr":          {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"encoding/json": {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// plotSuite draws time per operation against cluster size for one suite, on
// log-log axes, sift and its baselines on the same axes, as SVG.
// It returns nil for a suite without sizes (a compilation) and turns any
// panic of the plotting library into an error.
func plotSuite(suite string, results []Result) (svg []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			svg, err = nil, fmt.Errorf("bench: plot %s: %v", suite, r)
		}
	}()
	p := plot.New()
	p.Title.Text = suite
	p.X.Label.Text = "nodes"
	p.Y.Label.Text = "time per operation (ns)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	series := map[string]plotter.XYs{}
	var order []string
	xmin, xmax, ymin, ymax := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, r := range results {
		if r.Nodes <= 0 {
			continue
		}
		for _, m := range append([]Measurement{r.Measurement}, r.Baselines...) {
			if m.MedianNS <= 0 {
				continue
			}
			xmin, xmax = min(xmin, float64(r.Nodes)), max(xmax, float64(r.Nodes))
			ymin, ymax = min(ymin, m.MedianNS), max(ymax, m.MedianNS)
			if _, ok := series[m.Engine]; !ok {
				order = append(order, m.Engine)
			}
			series[m.Engine] = append(series[m.Engine], plotter.XY{X: float64(r.Nodes), Y: m.MedianNS})
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	// Log axes need a range: widen a single size or time to a decade.
	p.X.Min, p.X.Max = xmin/2, xmax*2
	p.Y.Min, p.Y.Max = ymin/2, ymax*2
	for i, name := range order {
		line, points, err := plotter.NewLinePoints(series[name])
		if err != nil {
			return nil, fmt.Errorf("bench: plot %s: %w", suite, err)
		}
		c, ok := engineColors[name]
		if !ok {
			c = color.RGBA{R: uint8(40 * i), G: 0x80, B: 0x80, A: 0xff}
		}
		line.Color, points.Color = c, c
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(name, line, points)
	}
	w, err := p.WriterTo(5*vg.Inch, 3.5*vg.Inch, "svg")
	if err != nil {
		return nil, fmt.Errorf("bench: plot %s: %w", suite, err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("bench: plot %s: %w", suite, err)
	}
	// The SVG is inlined in HTML: drop its XML prolog.
	out := b.String()
	if i := strings.Index(out, "<svg"); i > 0 {
		out = out[i:]
	}
	return []byte(out), nil
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sift bench</title>
<style>
body{font-family:sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse;font-size:90%}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}.plots{display:flex;flex-wrap:wrap;gap:1em}
</style></head><body>
<h1>sift bench</h1>
<p>Median time per operation against cluster size (log-log), sift and the in-process baselines on the same
axes; the table gives how many times faster sift is than each baseline (×). Baselines answered with the same
node sets as sift in this run.</p>
<pre>{{.Table}}</pre>
<div class="plots">{{range .Plots}}<figure>{{.}}</figure>{{end}}</div>
</body></html>
`))

// WriteHTML writes a page a person reads: the results table and, per suite,
// a log-log plot of time against nodes with the baselines on the same axes.
func (rep *Report) WriteHTML(w io.Writer) error {
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		return err
	}
	bySuite := map[string][]Result{}
	var suites []string
	for _, r := range rep.Results {
		if _, ok := bySuite[r.Suite]; !ok {
			suites = append(suites, r.Suite)
		}
		bySuite[r.Suite] = append(bySuite[r.Suite], r)
	}
	var plots []template.HTML
	for _, s := range suites {
		svg, err := plotSuite(s, bySuite[s])
		if err != nil {
			return err
		}
		if svg == nil {
			continue
		}
		// The SVG comes from gonum/plot, not from user input.
		plots = append(plots, template.HTML(svg))
	}
	return htmlPage.Execute(w, struct {
		Table string
		Plots []template.HTML
	}{table.String(), plots})
}
