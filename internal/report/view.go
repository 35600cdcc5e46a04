package report

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// view is a run prepared for display in one language: every string the page shows,
// already formatted, plus the raw numbers the charts, shading and sorting need. All
// formats render from it, so that text, markdown and html show the same figures.
type view struct {
	Lang      string
	Title     string
	Engine    string // "vllm · 0.32.0 · INT4 W4A16 g128"
	Plan      string // "4 contexts (0–56K) × 8 concurrency levels (1–128) · prefill at 8K, …"
	Submitter string // "by @Sandberg", or ""
	Tool      string // "llm-inference-bench v0.8.0"
	Kind      string // measured | emulated | predicted
	KindLabel string
	Warning   string // loud line for emulated and predicted documents

	Cards         []card
	LaunchCommand string
	// Headroom is the measuring client's headroom (headroom.go), "" where no client
	// measured the document.
	Headroom string

	Prefill []prefillRow

	Contexts    []int
	Concurrency []int
	Matrix      [][]MatrixCell // [context][concurrency]
	HasOverCap  bool

	Measurements []measurement
	HasCacheHit  bool
	HasEnergy    bool // the energy columns (energy.go)
	Footnotes    []footnote
	RunNotes     []string

	// Rate is an open-loop run's cells (nil for a matrix run).
	Rate *rateView
	// Capacity is the "how many users" section (capacity.go), nil where the document
	// has nothing to answer it with.
	Capacity *capacityView
	// Overlay is this run over the best run of its GPU and model (overlay.go); nil
	// without Options.Against.
	Overlay *OverlayView
	// Accuracy is what llmbench eval measured (accuracy.go).
	Accuracy []rundoc.Accuracy
	// Workload is what the run sent besides random words and its figures
	// (workload.go), nil for random words.
	Workload *workloadView
}

type card struct {
	Title  string
	Fields []field
}

type field struct{ Label, Value string }

type prefillRow struct {
	Context    int
	ContextStr string // "8K"
	Status     rundoc.Status
	StatusStr  string
	Reason     string
	HasFigures bool
	TokS       float64
	TokSStr    string // "2,163"
	TTFTStr    string // "3,808 ms"
}

// measurement is one row of the All measurements table: display strings and the raw
// values the sort uses (NaN where the seed shows "—").
type measurement struct {
	Phase    string
	Cells    []string  // in the order of measurementColumns
	Raw      []float64 // sort keys, same order
	Status   rundoc.Status
	Warn     bool
	Footnote int
	Details  []string
	Reason   string
	CacheHit string
	// Energy are the power, J/token and $/Mtok cells, EnergyRaw their sort keys.
	Energy    []string
	EnergyRaw []float64
}

type footnote struct {
	N     int
	Where string // "0 × 16"
	Text  string
	// Reason and Rest are a matrix cell's Text in two: its reason (when Text begins
	// with it) and the notes after it, for a page that lists the matrix's reasons
	// apart (reasonnotes.go).
	Reason, Rest string
}

// measurementColumns are the label keys of the All measurements table, the seed's columns.
var measurementColumns = []string{"phase", "context", "requests_at_once", "status", "total_toks", "per_request_toks", "ttft", "tbt", "avg_active", "completed", "output_tokens", "measured_for"}

const dash = "—"

func newView(run *rundoc.Run, lang string) *view {
	lang = locale.Norm(lang)
	v := &view{Lang: lang, Kind: run.Kind(), Accuracy: run.Accuracy, Workload: newWorkloadView(run, lang)}
	v.KindLabel = locale.T(lang, "kind_"+v.Kind)
	switch v.Kind {
	case rundoc.RunEmulated:
		v.Warning = locale.T(lang, "warn_emulated")
	case rundoc.RunPredicted:
		v.Warning = locale.T(lang, "warn_predicted")
	}
	v.Title = runTitle(run, lang)
	v.Engine = joinNonEmpty(" · ", run.Engine.Name, run.Engine.Version, run.Engine.Quantization)
	if run.Submitter != "" {
		v.Submitter = locale.T(lang, "by", run.Submitter)
	}
	if run.Tool.Name != "" {
		ver := run.Tool.Version
		if ver != "" && !strings.HasPrefix(ver, "v") {
			ver = "v" + ver
		}
		v.Tool = joinNonEmpty(" ", run.Tool.Name, ver)
	}
	v.Contexts, v.Concurrency = MatrixAxes(run)
	v.Plan = planLine(run, v.Contexts, v.Concurrency, lang)
	v.Cards = cards(run, lang)
	v.Headroom = clientHeadroom(run, lang)
	v.LaunchCommand = run.LaunchCommand
	for _, n := range run.Notes {
		v.RunNotes = append(v.RunNotes, NoteText(n, lang))
	}
	v.RunNotes = append(v.RunNotes, energyNotes(run, lang)...)
	v.HasEnergy = hasEnergy(run)

	for _, p := range run.Prefill {
		r := prefillRow{Context: p.Context, ContextStr: rundoc.FormatTokens(p.Context), Status: p.Status, StatusStr: StatusLabel(lang, p.Status), Reason: CapacityReason(p.Reason, lang)}
		if p.PrefillFigures != nil {
			r.HasFigures = true
			r.TokS = p.PromptTokS
			r.TokSStr = figureOr(p.PromptTokS, FormatNumber(lang, p.PromptTokS, 0))
			r.TTFTStr = figureOr(p.TTFTMs, FormatMs(lang, p.TTFTMs, 0))
		}
		v.Prefill = append(v.Prefill, r)
	}

	m := NewMatrix(run, v.Contexts, v.Concurrency, lang)
	v.Matrix, v.HasOverCap = m.Cells, m.HasOverCap
	cells := cellIndex(run)

	// Footnotes follow the matrix order, so [1] is the top-left cell with something to say.
	for i := range v.Matrix {
		for j := range v.Matrix[i] {
			mc := &v.Matrix[i][j]
			if !mc.Warn {
				continue
			}
			mc.Footnote = len(v.Footnotes) + 1
			f := footnote{N: mc.Footnote, Where: rundoc.FormatTokens(mc.Context) + " × " + strconv.Itoa(mc.Concurrency), Rest: strings.Join(mc.Details, "; ")}
			text := mc.Details
			if mc.Reason != "" && mc.Status != rundoc.StatusOverCapacity {
				text, f.Reason = append([]string{mc.Reason}, text...), mc.Reason
			}
			f.Text = strings.Join(text, "; ")
			v.Footnotes = append(v.Footnotes, f)
		}
	}

	v.Measurements = measurements(run, v, cells, lang)
	if run.Config.Rate != nil || len(run.Rate) > 0 {
		v.Rate = newRateView(run, v)
		if v.Plan == "" {
			v.Plan = v.Rate.Plan
		}
	}
	return v
}

// runTitle is the document's title, or the seed's "{model} on {GPU} {VRAM}".
func runTitle(run *rundoc.Run, lang string) string {
	if run.Title != "" {
		return run.Title
	}
	model := run.Model.ID
	if model == "" {
		model = run.Model.ServedName
	}
	model = path.Base(model)
	gpu := ""
	if len(run.Hardware.GPUs) > 0 {
		g := run.Hardware.GPUs[0]
		gpu = g.Name
		if g.Count > 1 {
			gpu = strconv.Itoa(g.Count) + "× " + gpu
		}
		if g.VRAMBytes > 0 {
			gpu += " " + strings.ReplaceAll(FormatGB(lang, g.VRAMBytes), " ", "")
		}
	} else if run.Hardware.Type == "cpu" {
		cpu := ""
		if c := run.Hardware.CPU; c != nil && c.Model != "" {
			cpu = " (" + c.Model + ")"
		}
		return locale.T(lang, "on_cpu", model, cpu)
	} else if run.Hardware.CPU != nil {
		gpu = run.Hardware.CPU.Model
	}
	if gpu == "" {
		return model
	}
	return locale.T(lang, "on", model, gpu)
}

// cellIndex finds decode cells by (context, concurrency) in constant time; the first
// cell wins when a document repeats one, as rundoc.Run.Cell does.
type cellKey struct{ context, concurrency int }

func cellIndex(run *rundoc.Run) map[cellKey]*rundoc.DecodeCell {
	idx := make(map[cellKey]*rundoc.DecodeCell, len(run.Decode))
	for i := range run.Decode {
		k := cellKey{run.Decode[i].Context, run.Decode[i].Concurrency}
		if _, dup := idx[k]; !dup {
			idx[k] = &run.Decode[i]
		}
	}
	return idx
}

func planLine(run *rundoc.Run, contexts, concurrency []int, lang string) string {
	var parts []string
	if len(contexts) > 0 && len(concurrency) > 0 {
		ctxWord, nWord := locale.T(lang, "plan_contexts"), locale.T(lang, "plan_levels")
		if len(contexts) == 1 {
			ctxWord = locale.T(lang, "plan_context")
		}
		if len(concurrency) == 1 {
			nWord = locale.T(lang, "plan_level")
		}
		parts = append(parts, locale.T(lang, "plan", len(contexts), ctxWord, span(contexts, rundoc.FormatTokens), len(concurrency), nWord, span(concurrency, strconv.Itoa)))
	}
	pre := run.Config.PrefillContexts
	if len(pre) == 0 {
		for _, p := range run.Prefill {
			pre = append(pre, p.Context)
		}
	}
	if len(pre) > 0 {
		var s []string
		for _, p := range pre {
			s = append(s, rundoc.FormatTokens(p))
		}
		parts = append(parts, locale.T(lang, "plan_prefill", strings.Join(s, ", ")))
	}
	return strings.Join(parts, " · ")
}

// span writes "0–56K", or the single value.
func span(xs []int, format func(int) string) string {
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return format(lo)
	}
	return format(lo) + "–" + format(hi)
}

func cards(run *rundoc.Run, lang string) []card {
	hw := card{Title: locale.T(lang, "hardware")}
	h := run.Hardware
	if h.Type != "" {
		typ := labelOr(lang, "hw_"+h.Type, h.Type)
		if h.Type == "emulated" && run.Engine.Preset != "" {
			// What it emulated: the preset names the GPU (perf:h200/…), which the
			// warning and a price's note may name too.
			typ = locale.T(lang, "hw_emulated_preset", run.Engine.Preset)
		}
		hw.Fields = append(hw.Fields, field{locale.T(lang, "type"), typ})
	}
	if len(h.GPUs) > 0 {
		var names, vram []string
		for _, g := range h.GPUs {
			name := g.Name
			if g.Count > 1 {
				name = strconv.Itoa(g.Count) + "× " + name
			}
			names = append(names, name)
			if g.VRAMBytes > 0 {
				vram = append(vram, FormatGB(lang, g.VRAMBytes))
			}
		}
		hw.Fields = append(hw.Fields, field{locale.T(lang, "gpu"), strings.Join(names, ", ")})
		if len(vram) > 0 {
			hw.Fields = append(hw.Fields, field{locale.T(lang, "vram"), strings.Join(vram, ", ")})
		}
	}
	if h.CPU != nil {
		cpu := h.CPU.Model
		if h.CPU.Cores > 0 {
			cpu += " (" + strconv.Itoa(h.CPU.Cores) + "C)"
		}
		hw.Fields = append(hw.Fields, field{locale.T(lang, "cpu"), cpu})
	}
	if h.RAMBytes > 0 {
		hw.Fields = append(hw.Fields, field{locale.T(lang, "ram"), FormatGB(lang, h.RAMBytes)})
	}
	if h.OS != "" {
		hw.Fields = append(hw.Fields, field{locale.T(lang, "os"), h.OS})
	}

	e := run.Engine
	eng := card{Title: locale.T(lang, "engine_card")}
	for _, f := range []field{{locale.T(lang, "engine"), e.Name}, {locale.T(lang, "version"), e.Version}, {locale.T(lang, "quantization"), e.Quantization}, {locale.T(lang, "backend"), e.Backend}, {locale.T(lang, "build"), e.Build}} {
		if f.Value != "" {
			eng.Fields = append(eng.Fields, f)
		}
	}

	c := run.Config
	rc := card{Title: locale.T(lang, "run_card")}
	add := func(key, value string) {
		if value != "" {
			rc.Fields = append(rc.Fields, field{locale.T(lang, key), value})
		}
	}
	add("served_model", run.Model.ServedName)
	if run.Model.ID != "" && run.Model.ID != run.Model.ServedName {
		add("model_id", run.Model.ID)
	}
	add("revision", run.Model.Revision)
	if c.DecodeTest != "" {
		add("decode_test", labelOr(lang, "dt_"+c.DecodeTest, c.DecodeTest))
	}
	switch {
	case run.Kind() == rundoc.RunPredicted:
		// A prediction measured nothing, during a warm-up or otherwise: its prefill is
		// the calculator's for a cold request (issue 37 item 11).
		add("prefill_mode", locale.T(lang, "pm_predicted"))
	case c.PrefillMode != "":
		add("prefill_mode", labelOr(lang, "pm_"+c.PrefillMode, c.PrefillMode))
	}
	if c.DurationS > 0 {
		add("time_per_meas", locale.T(lang, "s", strconv.FormatFloat(c.DurationS, 'f', -1, 64)))
	}
	if c.MaxOutputTokens > 0 {
		add("max_output", locale.T(lang, "n_tokens", FormatInt(lang, c.MaxOutputTokens)))
	}
	if run.Capacity != nil {
		switch {
		case run.Capacity.KVCacheTokens != nil:
			add("kv_capacity", locale.T(lang, "n_tokens", FormatInt(lang, int(*run.Capacity.KVCacheTokens))))
		case run.Capacity.Source == "unknown":
			add("kv_capacity", locale.T(lang, "kv_unknown"))
		}
	}
	add("client_headroom", clientHeadroom(run, lang))
	var out []card
	ec, _ := energyCard(run, lang)
	for _, cd := range []card{hw, eng, rc, ec} {
		if len(cd.Fields) > 0 {
			out = append(out, cd)
		}
	}
	return out
}

// labelOr returns the label key if it exists, else the raw value (an engine or mode
// this version does not know by name still shows).
func labelOr(lang, key, raw string) string {
	if locale.Has(key) {
		return locale.T(lang, key)
	}
	return raw
}

// cellDetails lists what a cell's extensions say. Warnings are what a reader must not
// miss (the server queued or preempted, requests failed or ended early, the client
// was the limit); info is context (cache hits, server gauges, tail latencies).
func cellDetails(lang string, c *rundoc.DecodeCell) (warnings, info []string) {
	d := c.CellDetail
	if d == nil {
		return nil, nil
	}
	if d.Queueing {
		w := locale.T(lang, "n_queueing")
		if d.PeakStreaming > 0 && d.PeakStreaming < c.Concurrency {
			w += " (" + locale.T(lang, "n_peak_streaming", FormatInt(lang, d.PeakStreaming), FormatInt(lang, c.Concurrency)) + ")"
		}
		warnings = append(warnings, w)
	}
	preempt := 0.0
	if d.Preemptions != nil {
		preempt = float64(*d.Preemptions)
	} else if d.Server != nil && d.Server.Preemptions != nil {
		preempt = *d.Server.Preemptions
	}
	if preempt > 0 {
		warnings = append(warnings, locale.T(lang, "n_preemptions", FormatNumber(lang, preempt, 0)))
	}
	if d.Errors > 0 {
		w := locale.T(lang, "n_errors", FormatInt(lang, d.Errors), FormatInt(lang, max(d.Requests, d.Errors)))
		if len(d.ErrorSamples) > 0 {
			w += ": " + d.ErrorSamples[0]
		}
		warnings = append(warnings, w)
	}
	if d.EndedEarly > 0 {
		warnings = append(warnings, locale.T(lang, "n_ended_early", FormatInt(lang, d.EndedEarly)))
	}
	if d.ClientLimited {
		warnings = append(warnings, locale.T(lang, "n_client_limited"))
	}
	for _, f := range d.Flags {
		warnings = append(warnings, flagNote(lang, f, d.RateDrift))
	}
	if d.CacheHitRatio != nil {
		info = append(info, locale.T(lang, "n_cache_hit", FormatPercent(lang, *d.CacheHitRatio)))
	}
	if g := serverGauges(lang, d.Server, true); g != "" {
		info = append(info, g)
	}
	if d.TTFTP90Ms != nil {
		info = append(info, percentiles(lang, "TTFT", d.TTFTP90Ms, d.TTFTP99Ms, 0))
	}
	if d.TBTP90Ms != nil {
		info = append(info, percentiles(lang, "TBT", d.TBTP90Ms, d.TBTP99Ms, 1))
	}
	info = append(info, decodeWorkloadInfo(lang, d)...)
	return warnings, info
}

// serverGauges is what the server's gauges said during a measurement, as a line of
// its details ("" when it has none): its running and waiting requests, and with kv
// its KV cache's use (a rate cell's table shows none).
func serverGauges(lang string, s *rundoc.ServerMetrics, kv bool) string {
	if s == nil {
		return ""
	}
	meanMax := func(m *rundoc.MinMean, decimals int) string {
		return locale.T(lang, "n_mean_max", FormatNumber(lang, m.Mean, decimals), FormatNumber(lang, m.Max, 0))
	}
	var g []string
	if s.Running != nil {
		g = append(g, locale.T(lang, "n_running", meanMax(s.Running, 1)))
	}
	if s.Waiting != nil {
		g = append(g, locale.T(lang, "n_waiting", meanMax(s.Waiting, 1)))
	}
	if kv && s.KVUsage != nil {
		g = append(g, locale.T(lang, "n_kv_usage", locale.T(lang, "n_mean_max", FormatPercent(lang, s.KVUsage.Mean), FormatPercent(lang, s.KVUsage.Max))))
	}
	if len(g) == 0 {
		return ""
	}
	return locale.T(lang, "n_server", strings.Join(g, ", "))
}

func percentiles(lang, name string, p90, p99 *float64, decimals int) string {
	if p99 != nil {
		return locale.T(lang, "n_p90_p99", name, FormatMs(lang, *p90, decimals), FormatMs(lang, *p99, decimals))
	}
	return locale.T(lang, "n_p90", name, FormatMs(lang, *p90, decimals))
}

func measurements(run *rundoc.Run, v *view, cells map[cellKey]*rundoc.DecodeCell, lang string) []measurement {
	nan := math.NaN()
	var rows []measurement
	prefill := slices.Clone(run.Prefill)
	slices.SortStableFunc(prefill, func(a, b rundoc.PrefillRow) int { return cmp.Compare(a.Context, b.Context) })
	for _, p := range prefill {
		m := measurement{Phase: "prefill", Status: p.Status, Reason: CapacityReason(p.Reason, lang)}
		m.Cells = []string{locale.T(lang, "phase_prefill"), rundoc.FormatTokens(p.Context), "1", StatusLabel(lang, p.Status), dash, dash, dash, dash, dash, dash, dash, dash}
		m.Raw = []float64{0, float64(p.Context), 1, 0, nan, nan, nan, nan, nan, nan, nan, nan}
		if f := p.PrefillFigures; f != nil {
			pi := prefillIntervals(&p)
			m.figure(4, f.PromptTokS, plusMinus(lang, FormatNumber(lang, f.PromptTokS, 1), f.PromptTokS, pi.PromptTokSCI, 1))
			m.figure(6, f.TTFTMs, plusMinus(lang, FormatMs(lang, f.TTFTMs, 0), f.TTFTMs, pi.TTFTMsCI, 0))
			if f.CompletedRequests > 0 {
				m.Cells[9], m.Raw[9] = FormatInt(lang, f.CompletedRequests), float64(f.CompletedRequests)
			}
		}
		m.Energy, m.EnergyRaw = prefillEnergyCells(lang, p)
		m.Details = prefillIntervalInfo(lang, &p)
		if p.Reason != "" && (p.Status == rundoc.StatusFailed || p.Status == rundoc.StatusInvalid || p.Status == rundoc.StatusInterrupted) {
			m.Warn = true
			m.Details = append([]string{p.Reason}, m.Details...)
			m.Footnote = len(v.Footnotes) + 1
			v.Footnotes = append(v.Footnotes, footnote{N: m.Footnote, Where: locale.T(lang, "phase_prefill") + " " + rundoc.FormatTokens(p.Context), Text: p.Reason})
		}
		rows = append(rows, m)
	}
	for i, ctx := range v.Contexts {
		for j, n := range v.Concurrency {
			mc := v.Matrix[i][j]
			c := cells[cellKey{ctx, n}]
			if c == nil {
				continue
			}
			m := measurement{Phase: "decode", Status: c.Status, Warn: mc.Warn, Footnote: mc.Footnote, Details: mc.Details, Reason: mc.Reason}
			m.Cells = []string{locale.T(lang, "phase_decode"), rundoc.FormatTokens(ctx), strconv.Itoa(n), StatusLabel(lang, c.Status), dash, dash, dash, dash, dash, dash, dash, dash}
			m.Raw = []float64{1, float64(ctx), float64(n), 0, nan, nan, nan, nan, nan, nan, nan, nan}
			if f := c.DecodeFigures; f != nil && c.Status != rundoc.StatusOverCapacity {
				ci := cellIntervals(c)
				m.figure(4, f.TotalTokS, plusMinus(lang, FormatNumber(lang, f.TotalTokS, 1), f.TotalTokS, ci.TotalTokSCI, 1))
				m.figure(5, f.PerRequestTokS, FormatNumber(lang, f.PerRequestTokS, 1))
				m.figure(6, f.TTFTMs, plusMinus(lang, FormatMs(lang, f.TTFTMs, 0), f.TTFTMs, ci.TTFTMsCI, 0))
				m.figure(7, f.TBTMs, plusMinus(lang, FormatMs(lang, f.TBTMs, 1), f.TBTMs, ci.TBTMsCI, 1))
			}
			if w := c.WindowStats; w != nil && c.Status != rundoc.StatusOverCapacity {
				m.Cells[8], m.Raw[8] = FormatNumber(lang, w.AvgActiveRequests, 2), w.AvgActiveRequests
				m.Cells[9], m.Raw[9] = FormatInt(lang, w.CompletedRequests), float64(w.CompletedRequests)
				m.Cells[10], m.Raw[10] = FormatInt(lang, w.OutputTokens), float64(w.OutputTokens)
				m.figure(11, w.MeasuredS, FormatSeconds(lang, w.MeasuredS))
			}
			m.Energy, m.EnergyRaw = decodeEnergyCells(lang, c)
			if c.CellDetail != nil && c.CacheHitRatio != nil {
				m.CacheHit = FormatPercent(lang, *c.CacheHitRatio)
				v.HasCacheHit = true
			}
			rows = append(rows, m)
		}
	}
	return rows
}

// figure puts a rate or latency in column i, leaving "—" where it is not a
// measurement (rundoc.Measured).
func (m *measurement) figure(i int, v float64, text string) {
	if rundoc.Measured(v) {
		m.Cells[i], m.Raw[i] = text, v
	}
}

// figureOr is text, the figure v written, or "—" where v is not a measurement: a
// figure the document leaves out reads as 0, which no cell measured (rundoc.Measured).
func figureOr(v float64, text string) string {
	if !rundoc.Measured(v) {
		return dash
	}
	return text
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
