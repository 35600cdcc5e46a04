package rundoc

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file checks a run document someone else wrote (a submission to the site)
// against schema v1: required fields present, statuses known, numbers finite,
// non-negative and plausible, and every cell on the plan's axes. The checks read the
// fields in a fixed order, so one document is always refused on the same field.

// FieldError says which field of a document is wrong and why.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Validate checks a decoded run document and returns its first fault, or nil.
// Extensions (fields this version does not know) are not its concern: it checks
// every field it knows.
func Validate(r *Run) *FieldError {
	v := validator{}
	v.run(r)
	return v.err
}

// ValidID reports whether s is safe as a run id (and any name that goes into a URL or
// a file name): 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit.
func ValidID(s string) bool { return idPattern.MatchString(s) }

// idPattern keeps run ids safe in URLs and file names.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Limits on what one document may hold; far beyond any real plan or machine, so that
// only a made-up figure is refused. The site bounds its queries by the same.
const (
	MaxAxis   = 64      // contexts, concurrency levels, prefill contexts
	MaxTokens = 1 << 24 // 16M-token contexts
	MaxConc   = 1 << 20

	MaxName      = 256      // characters of a name the site lists, filters and titles by
	MaxString    = 32 << 10 // bytes of any other string (a launch command, a note)
	maxReason    = 1024     // characters of a cell's reason, shown on hover in every matrix
	MaxNotes     = 64
	maxGPUs      = 4096           // accelerators of one kind in a run
	maxVRAMBytes = 16 << 40       // 16 TiB per accelerator
	maxRAMBytes  = 1 << 50        // 1 PiB
	maxTokS      = 1e7            // tok/s of one server, all requests together
	maxMs        = 1e9            // 11 days
	MaxSeconds   = 1e7            // 115 days
	maxCount     = 1 << 40        // requests, tokens
	maxWatts     = 1e5            // one accelerator's power limit
	maxKVTokens  = int64(1) << 40 // tokens of KV cache
)

type validator struct{ err *FieldError }

func (v *validator) fail(field, format string, args ...any) {
	if v.err == nil {
		v.err = &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

// number checks a figure: finite, ≥ 0 and at most hi, the most any real server or
// machine could give.
func (v *validator) number(field string, x, hi float64) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || x < 0:
		v.fail(field, "must be a finite number ≥ 0, got %v", x)
	case x > hi:
		v.fail(field, "%v is not plausible (at most %v)", x, hi)
	}
}

func (v *validator) optNumber(field string, x *float64, hi float64) {
	if x != nil {
		v.number(field, *x, hi)
	}
}

func (v *validator) count(field string, n int) { v.count64(field, int64(n), maxCount) }

// namedCount is a count with its field name, for counts checked in a fixed order (a
// map's would name a different fault of one document each time).
type namedCount struct {
	name string
	n    int
}

// counts checks each count under prefix, in order.
func (v *validator) counts(prefix string, cs []namedCount) {
	for _, c := range cs {
		v.count(prefix+"."+c.name, c.n)
	}
}

func (v *validator) count64(field string, n, hi int64) {
	switch {
	case n < 0:
		v.fail(field, "must be ≥ 0, got %d", n)
	case n > hi:
		v.fail(field, "%d is not plausible (at most %d)", n, hi)
	}
}

func (v *validator) optCount(field string, n *int) {
	if n != nil {
		v.count(field, *n)
	}
}

func (v *validator) optCount64(field string, n *int64, hi int64) {
	if n != nil {
		v.count64(field, *n, hi)
	}
}

func (v *validator) required(field, s string) {
	if strings.TrimSpace(s) == "" {
		v.fail(field, "is required")
	}
}

// name checks a string the site lists, filters or titles by.
func (v *validator) name(field, s string) { v.text(field, s, MaxName) }

func (v *validator) text(field, s string, max int) {
	if n := utf8.RuneCountInString(s); n > max {
		v.fail(field, "is %d characters long; at most %d", n, max)
	}
}

func (v *validator) run(r *Run) {
	v.identity(r)
	v.hardware(r.Hardware)
	v.engineLimits(r.Engine)
	if len(r.Notes) > MaxNotes {
		v.fail("notes", "has %d notes; at most %d", len(r.Notes), MaxNotes)
	}
	axes := v.config(r)
	if v.err != nil {
		return
	}
	predicted := r.Status == RunPredicted
	v.prefillRows(r.Prefill, axes, predicted)
	v.decodeCells(r.Decode, axes, predicted)
	v.runEnergy(r.Energy)
	v.rates(r, predicted)
	v.intervals(r)
	v.workload(r)
	v.accuracy(r.Accuracy)
}

// identity checks what names a run: schema, id, status, time, tool, engine and model,
// and every name it holds.
func (v *validator) identity(r *Run) {
	switch r.SchemaVersion {
	case SchemaVersion:
	case 0:
		v.fail("schema_version", "is required (this site reads schema_version %d)", SchemaVersion)
	default:
		v.fail("schema_version", "is %d; this site reads schema_version %d", r.SchemaVersion, SchemaVersion)
	}
	if r.ID == "" {
		v.fail("id", "is required")
	} else if !idPattern.MatchString(r.ID) {
		v.fail("id", "must be 1–128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	switch r.Status {
	case "", RunMeasured, RunEmulated, RunPredicted:
	default:
		v.fail("status", "must be measured, emulated or predicted, not %q", r.Status)
	}
	if r.CreatedAt.IsZero() {
		v.fail("created_at", "is required")
	} else if y := r.CreatedAt.Year(); y < 2000 || y > 2100 {
		v.fail("created_at", "year %d is not plausible", y)
	}
	v.required("tool.name", r.Tool.Name)
	v.required("engine.name", r.Engine.Name)
	if strings.TrimSpace(r.Model.ServedName) == "" && strings.TrimSpace(r.Model.ID) == "" {
		v.fail("model.served_name", "is required (or model.id)")
	}
	for _, n := range [][2]string{{"title", r.Title}, {"submitter", r.Submitter}, {"tool.name", r.Tool.Name},
		{"tool.version", r.Tool.Version}, {"engine.name", r.Engine.Name}, {"engine.version", r.Engine.Version},
		{"engine.quantization", r.Engine.Quantization}, {"engine.kv_cache_dtype", r.Engine.KVCacheDtype}, {"engine.preset", r.Engine.Preset},
		{"model.served_name", r.Model.ServedName}, {"model.id", r.Model.ID}, {"model.revision", r.Model.Revision},
		{"hardware.cpu.model", cpuModel(r.Hardware)}} {
		v.name(n[0], n[1])
	}
}

// hardware checks the GPUs and the machine's memory.
func (v *validator) hardware(h Hardware) {
	if len(h.GPUs) > MaxAxis {
		v.fail("hardware.gpus", "has %d kinds of GPU; at most %d", len(h.GPUs), MaxAxis)
	}
	for i, g := range h.GPUs {
		f := fmt.Sprintf("hardware.gpus[%d]", i)
		v.required(f+".name", g.Name)
		v.name(f+".name", g.Name)
		v.count64(f+".vram_bytes", g.VRAMBytes, maxVRAMBytes)
		v.count64(f+".count", int64(g.Count), maxGPUs)
		v.number(f+".power_limit_w", g.PowerLimitW, maxWatts)
	}
	if _, ok := TotalVRAMBytes(h); !ok {
		v.fail("hardware.gpus", "the GPUs' memory does not add up to a number (it overflows)")
	}
	v.count64("hardware.ram_bytes", h.RAMBytes, maxRAMBytes)
}

// engineLimits checks the engine's stated limits.
func (v *validator) engineLimits(e Engine) {
	v.optCount64("engine.kv_cache_tokens", e.KVCacheTokens, maxKVTokens)
	v.optCount64("engine.max_model_len", e.MaxModelLen, MaxTokens)
	v.optCount64("engine.max_num_seqs", e.MaxNumSeqs, MaxConc)
}

// planAxes are the contexts and concurrency levels a run's config states.
type planAxes struct{ contexts, concurrency, prefill map[int]bool }

// config checks the run's config and returns its axes.
func (v *validator) config(r *Run) planAxes {
	c := r.Config
	// An open-loop run (config.rate, rate[]) has no matrix, nor has a document of
	// accuracy alone (llmbench eval): their axes may be empty.
	openLoop := c.Rate != nil || len(r.Rate) > 0 || r.EvalOnly()
	var a planAxes
	a.contexts = v.axis("config.contexts", c.Contexts, 0, MaxTokens, !openLoop)
	a.concurrency = v.axis("config.concurrency", c.Concurrency, 1, MaxConc, !openLoop)
	a.prefill = v.axis("config.prefill_contexts", c.PrefillContexts, 0, MaxTokens, false)
	v.number("config.duration_s", c.DurationS, MaxSeconds)
	v.count64("config.max_output_tokens", int64(c.MaxOutputTokens), MaxTokens)

	return a
}

// prefillRows checks the prefill rows against the config's contexts.
func (v *validator) prefillRows(rows []PrefillRow, a planAxes, predicted bool) {
	prefillSeen := map[int]bool{}
	for i, p := range rows {
		f := fmt.Sprintf("prefill[%d]", i)
		if !a.prefill[p.Context] && !a.contexts[p.Context] {
			v.fail(f+".context", "%d is in neither config.prefill_contexts nor config.contexts", p.Context)
		}
		if prefillSeen[p.Context] {
			v.fail(f, "a second row for context %d", p.Context)
		}
		prefillSeen[p.Context] = true
		v.status(f+".status", p.Status, predicted)
		v.text(f+".reason", p.Reason, maxReason)
		if p.PrefillFigures != nil {
			v.number(f+".prompt_tok_s", p.PromptTokS, maxTokS*100)
			v.number(f+".ttft_ms", p.TTFTMs, maxMs)
			v.count(f+".completed_requests", p.CompletedRequests)
			v.count(f+".prompt_tokens", p.PromptTokens)
			v.optCount(f+".cached_tokens", p.CachedTokens)
		} else if p.Status == StatusValid || p.Status == StatusPredicted {
			v.fail(f+".prompt_tok_s", "is required for a %s row", p.Status)
		}
		v.prefillEnergy(f, p.PrefillEnergy)
	}
}

// decodeCells checks the decode cells against the config's axes.
func (v *validator) decodeCells(cells []DecodeCell, a planAxes, predicted bool) {
	seen := map[[2]int]bool{}
	for i, d := range cells {
		f := fmt.Sprintf("decode[%d]", i)
		if !a.contexts[d.Context] {
			v.fail(f+".context", "%d is not in config.contexts", d.Context)
		}
		if !a.concurrency[d.Concurrency] {
			v.fail(f+".concurrency", "%d is not in config.concurrency", d.Concurrency)
		}
		key := [2]int{d.Context, d.Concurrency}
		if seen[key] {
			v.fail(f, "a second cell for context %d × concurrency %d", d.Context, d.Concurrency)
		}
		seen[key] = true
		v.status(f+".status", d.Status, predicted)
		v.text(f+".reason", d.Reason, maxReason)
		if d.DecodeFigures != nil {
			v.number(f+".total_tok_s", d.TotalTokS, maxTokS)
			v.number(f+".per_request_tok_s", d.PerRequestTokS, maxTokS)
			v.number(f+".ttft_ms", d.TTFTMs, maxMs)
			v.number(f+".tbt_ms", d.TBTMs, maxMs)
		} else if d.Status == StatusValid || d.Status == StatusPredicted {
			v.fail(f+".total_tok_s", "is required for a %s cell", d.Status)
		}
		if w := d.WindowStats; w != nil {
			v.number(f+".avg_active_requests", w.AvgActiveRequests, MaxConc)
			v.count(f+".completed_requests", w.CompletedRequests)
			v.count(f+".output_tokens", w.OutputTokens)
			v.number(f+".measured_s", w.MeasuredS, MaxSeconds)
		}
		if cd := d.CellDetail; cd != nil {
			v.optNumber(f+".ttft_p90_ms", cd.TTFTP90Ms, maxMs)
			v.optNumber(f+".ttft_p99_ms", cd.TTFTP99Ms, maxMs)
			v.optNumber(f+".tbt_p90_ms", cd.TBTP90Ms, maxMs)
			v.optNumber(f+".tbt_p99_ms", cd.TBTP99Ms, maxMs)
			v.optNumber(f+".cache_hit_ratio", cd.CacheHitRatio, 1)
			v.counts(f, []namedCount{{"requests", cd.Requests}, {"errors", cd.Errors}, {"ended_early", cd.EndedEarly},
				{"prompt_tokens", cd.PromptTokens}, {"ttft_samples", cd.TTFTSamples}, {"tbt_samples", cd.TBTSamples},
				{"peak_streaming_requests", cd.PeakStreaming}, {"reconnects", cd.Reconnects}, {"streams_arrived_whole", cd.StreamsArrivedWhole}})
			v.optNumber(f+".early_end_loss", cd.EarlyEndLoss, 1)
			v.outcomes(f+".request_outcomes", cd.Outcomes)
			v.optNumber(f+".ttfo_ms", cd.TTFOMs, maxMs)
			v.workloadFigures(f, cd.Series, cd.RateDrift, cd.ReasoningTokens, cd.AnswerTokens)
		}
		v.cellEnergy(f, d.CellEnergy)
	}
}

// maxOutcomes bounds a cell's request_outcomes: llmbench counts a request under one
// of six ways it can end (openai.Outcome), and a map is no place for more than a few.
const maxOutcomes = 16

// outcomes checks a cell's counts of requests by outcome: a few, each a name and a
// count, read in the order of their names (a map's own order would name a different
// fault of one document each time).
func (v *validator) outcomes(field string, m map[string]int) {
	if len(m) > maxOutcomes {
		v.fail(field, "has %d outcomes; at most %d", len(m), maxOutcomes)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v.name(field+"."+k, k)
		v.count(field+"."+k, m[k])
	}
}

// axis checks one of the plan's axes and returns its values as a set.
func (v *validator) axis(field string, xs []int, lo, hi int, required bool) map[int]bool {
	if required && len(xs) == 0 {
		v.fail(field, "is required (at least one value)")
	}
	if len(xs) > MaxAxis {
		v.fail(field, "has %d values; at most %d", len(xs), MaxAxis)
	}
	set := make(map[int]bool, len(xs))
	for i, x := range xs {
		if x < lo || x > hi {
			v.fail(fmt.Sprintf("%s[%d]", field, i), "%d is out of range %d–%d", x, lo, hi)
		}
		if set[x] {
			v.fail(fmt.Sprintf("%s[%d]", field, i), "%d is listed twice", x)
		}
		set[x] = true
	}
	return set
}

func (v *validator) status(field string, s Status, predictedRun bool) {
	switch s {
	case StatusValid, StatusOverCapacity, StatusFailed, StatusInterrupted, StatusInvalid:
		if predictedRun && s == StatusValid {
			v.fail(field, "a predicted document's cells are %q, not measured %q", StatusPredicted, s)
		}
	case StatusPredicted:
		if !predictedRun {
			v.fail(field, "%q cells belong in a document whose status is %q", s, RunPredicted)
		}
	case StatusPending:
		v.fail(field, "the run is still in progress (a pending cell): finish it with llmbench run --resume before submitting")
	case "":
		v.fail(field, "is required")
	default:
		v.fail(field, "unknown status %q (valid, over_capacity, failed, interrupted, invalid, predicted)", s)
	}
}

func cpuModel(h Hardware) string {
	if h.CPU == nil {
		return ""
	}
	return h.CPU.Model
}

// TotalVRAMBytes adds up the memory of every GPU; ok is false when the sum does not
// fit an int64 (the validator refuses such documents; this keeps a stored one from
// wrapping around to a tiny total that would rank first per GB).
func TotalVRAMBytes(h Hardware) (total int64, ok bool) {
	for _, g := range h.GPUs {
		n := int64(max(g.Count, 1))
		if g.VRAMBytes < 0 || (g.VRAMBytes > 0 && n > math.MaxInt64/g.VRAMBytes) {
			return 0, false
		}
		if total > math.MaxInt64-g.VRAMBytes*n {
			return 0, false
		}
		total += g.VRAMBytes * n
	}
	return total, true
}
