package eval

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colors are the systems' colours in the charts of [WriteHTML], by
// system name; other names take [OtherColor]. Nothing else on the page
// uses them, so a screenshot shows whether the charts were drawn.
var Colors = map[string]color.RGBA{
	"default": {0x1f, 0x77, 0xb4, 0xff}, // blue
	"lexical": {0xff, 0x7f, 0x0e, 0xff}, // orange
	"dense":   {0x2c, 0xa0, 0x2c, 0xff}, // green
	"grep":    {0xd6, 0x27, 0x28, 0xff}, // red
}

// OtherColor is the colour of a system [Colors] does not name.
var OtherColor = color.RGBA{0x94, 0x67, 0xbd, 0xff}

func systemColor(name string) color.RGBA {
	if c, ok := Colors[name]; ok {
		return c
	}
	return OtherColor
}

// chartFont is the charts' typeface; the page embeds it once, so the SVG
// text renders as it was measured, without network or installed fonts.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// WriteHTML writes r as one self-contained HTML page: the run's facts,
// charts of the metrics and latencies per system (SVG drawn here with
// gonum/plot and inlined, with the font they use embedded), the tables
// behind them, what the queries and systems are, and the per-query
// details when r has them. The page loads nothing from the network.
func WriteHTML(w io.Writer, r *Report) error {
	quality, err := qualityChart(r)
	if err != nil {
		return fmt.Errorf("drawing the metrics chart: %w", err)
	}
	latency, err := latencyChart(r)
	if err != nil {
		return fmt.Errorf("drawing the latency chart: %w", err)
	}
	kinds, err := kindChart(r)
	if err != nil {
		return fmt.Errorf("drawing the query kinds chart: %w", err)
	}
	ttf, err := fontData()
	if err != nil {
		return err
	}
	data := struct {
		*Report
		Quality, Latency, Kinds template.HTML
		Font                    template.CSS
		KindNames               []string
		SystemNames             []string
	}{Report: r, Quality: quality, Latency: latency, Kinds: kinds, KindNames: reportKinds(r),
		Font: template.CSS(`@font-face{font-family:"Liberation Sans";src:url(data:font/ttf;base64,` + ttf + `) format("truetype");}`)}
	for _, s := range r.Systems {
		data.SystemNames = append(data.SystemNames, s.Name)
	}
	return pageTemplate().Execute(w, data)
}

// reportKinds lists the query kinds r asked, in [Kinds] order.
func reportKinds(r *Report) []string {
	var out []string
	for _, k := range Kinds {
		if r.ByKind[k] > 0 {
			out = append(out, k)
		}
	}
	return out
}

var fontData = sync.OnceValues(func() (string, error) {
	face := font.DefaultCache.Lookup(chartFont, 10)
	if face.Face == nil {
		return "", fmt.Errorf("the chart font %v is missing", chartFont)
	}
	var b bytes.Buffer
	if _, err := face.Face.WriteSourceTo(nil, &b); err != nil {
		return "", fmt.Errorf("reading the chart font: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
})

// groupedBars draws one bar per system at each of groups: values[s][g]
// is system s's value for group g.
func groupedBars(title, ylabel string, groups []string, r *Report, values [][]float64, ymax float64) (template.HTML, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	p.NominalX(groups...)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Typeface, st.Font.Variant = chartFont.Typeface, chartFont.Variant
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(6)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	n := len(r.Systems)
	width := vg.Points(min(18, 300/float64(max(1, n*len(groups)))))
	peak := 0.0
	for i, s := range r.Systems {
		b, err := plotter.NewBarChart(plotter.Values(values[i]), width)
		if err != nil {
			return "", err
		}
		b.Color = systemColor(s.Name)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(n-1)/2) * width
		p.Add(b)
		p.Legend.Add(s.Name, b)
		peak = max(peak, slices.Max(values[i]))
	}
	// Headroom above the tallest bar keeps the legend off the bars; a
	// score's ticks stop at 1.
	top := max(ymax, peak)
	if top == 0 {
		top = 1
	}
	p.Y.Max = top * 1.35
	if ymax == 1 {
		p.Y.Tick.Marker = plot.ConstantTicks(scoreTicks)
	}
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	c := vgsvg.NewWith(vgsvg.UseWH(vg.Points(640), vg.Points(300)))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:] // inline: no XML prolog
	}
	return template.HTML(svg), nil
}

// scoreTicks label a score axis from 0 to 1.
var scoreTicks = []plot.Tick{{Value: 0, Label: "0"}, {Value: 0.2, Label: "0.2"}, {Value: 0.4, Label: "0.4"},
	{Value: 0.6, Label: "0.6"}, {Value: 0.8, Label: "0.8"}, {Value: 1, Label: "1"}}

func qualityChart(r *Report) (template.HTML, error) {
	values := make([][]float64, len(r.Systems))
	for i, s := range r.Systems {
		values[i] = []float64{s.Recall1, s.Recall5, s.Recall10, s.MRR, s.NDCG10}
	}
	return groupedBars(fmt.Sprintf("Retrieval quality, %d queries (file level, higher is better)", r.Queries), "score",
		[]string{"Recall@1", "Recall@5", "Recall@10", "MRR", "NDCG@10"}, r, values, 1)
}

func latencyChart(r *Report) (template.HTML, error) {
	values := make([][]float64, len(r.Systems))
	for i, s := range r.Systems {
		values[i] = []float64{s.LatencyP50MS, s.LatencyP95MS}
	}
	return groupedBars("Latency per query (lower is better)", "milliseconds", []string{"p50", "p95"}, r, values, 0)
}

func kindChart(r *Report) (template.HTML, error) {
	kinds := reportKinds(r)
	if len(kinds) == 0 {
		return "", nil
	}
	values := make([][]float64, len(r.Systems))
	var groups []string
	for _, k := range kinds {
		groups = append(groups, fmt.Sprintf("%s (%d)", k, r.ByKind[k]))
	}
	for i, s := range r.Systems {
		for _, k := range kinds {
			values[i] = append(values[i], s.ByKind[k].NDCG10)
		}
	}
	return groupedBars("NDCG@10 by query kind", "NDCG@10", groups, r, values, 1)
}

// pageTemplate is the report page, parsed on first use: every ctx process
// would otherwise parse it at start (0.5 ms) for `ctx eval --html` alone.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"f3":       func(x float64) string { return fmt.Sprintf("%.3f", x) },
		"f1":       func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"answer":   func(d Detail, name string) Answer { return d.Answers[name] },
		"kindNDCG": func(s System, k string) string { return fmt.Sprintf("%.3f", s.ByKind[k].NDCG10) },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ctx eval: {{.Repository}}</title>
<style>
{{.Font}}
body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;margin:24px auto;max-width:1000px;color:#222;background:#fff;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}
h2{font-size:17px;margin-top:28px}
p.facts{color:#555;margin-top:0}
table{border-collapse:collapse;margin:8px 0}
th,td{border-bottom:1px solid #ddd;padding:4px 10px;text-align:right;font-variant-numeric:tabular-nums}
th:first-child,td:first-child{text-align:left}
td.q{text-align:left;max-width:420px}
.chart{margin:12px 0}
.chart svg{max-width:100%;height:auto}
code{font-size:13px}
</style>
</head>
<body>
<h1>ctx eval: {{.Repository}}</h1>
<p class="facts">{{.Queries}} queries from {{if eq .Split "heldout"}}the held-out files (every 10th file by a hash of its path, which <code>ctx train</code> never trains on){{else}}every file{{end}},
seed {{.Seed}}{{if .KeepNames}}, doc comments keeping the definition's own name{{end}} · index generation {{.IndexGeneration}} · embedding model <code>{{.Model}}</code> · {{.Files}} files</p>

<div class="chart" id="quality">{{.Quality}}</div>

<table>
<tr><th>system</th><th>Recall@1</th><th>Recall@5</th><th>Recall@10</th><th>MRR</th><th>NDCG@10</th><th>p50 ms</th><th>p95 ms</th></tr>
{{range .Systems}}<tr><td>{{.Name}}</td><td>{{f3 .Recall1}}</td><td>{{f3 .Recall5}}</td><td>{{f3 .Recall10}}</td><td>{{f3 .MRR}}</td><td>{{f3 .NDCG10}}</td><td>{{f1 .LatencyP50MS}}</td><td>{{f1 .LatencyP95MS}}</td></tr>
{{end}}</table>

<div class="chart" id="kinds">{{.Kinds}}</div>
<table>
<tr><th>system</th>{{range .KindNames}}<th>{{.}} NDCG@10</th>{{end}}</tr>
{{range $s := .Systems}}<tr><td>{{$s.Name}}</td>{{range $.KindNames}}<td>{{kindNDCG $s .}}</td>{{end}}</tr>
{{end}}</table>

<div class="chart" id="latency">{{.Latency}}</div>

<h2>What was measured</h2>
<p>Each query comes from the repository's own code, as <code>ctx train</code> mines it: a doc comment
(with the definition's own name taken out, so that looking the name up does not answer it), a
definition's split name and enclosing type, or a comment inside a function. Its answer is the file
the code is in; a text mined from two files is not asked. The words of a query occur in its file,
so these queries are easier than a person's questions: compare the systems with each other, on
this code, rather than read the numbers as absolute quality.</p>
<table>
<tr><th>system</th><th style="text-align:left">what it runs</th></tr>
{{range .Systems}}<tr><td>{{.Name}}</td><td class="q">{{.Description}}</td></tr>
{{end}}</table>
<p>Metrics are over the first 10 distinct files of each answer (Recall@k: the query's file is among the
first k; MRR: 1/rank of the file; NDCG@10: 1/log2(rank+1)), averaged over the queries.</p>
{{if .Details}}
<h2>Queries</h2>
<details><summary>{{len .Details}} queries with each system's rank of the answer (0: not in the first 10 files)</summary>
<table>
<tr><th>query</th><th>kind</th><th style="text-align:left">file</th>{{range .SystemNames}}<th>{{.}}</th>{{end}}</tr>
{{range $d := .Details}}<tr><td class="q">{{$d.Text}}</td><td>{{$d.Kind}}</td><td class="q"><code>{{$d.Path}}:{{$d.StartLine}}</code></td>{{range $.SystemNames}}<td>{{(answer $d .).Rank}}</td>{{end}}</tr>
{{end}}</table>
</details>
{{end}}
</body>
</html>
`))
})
