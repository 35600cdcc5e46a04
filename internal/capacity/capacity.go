// Package capacity answers the question a speed test matrix is read for: how many
// people can this server serve at once at a speed they accept? For each context row of
// a run document it finds the largest number of simultaneous requests at which every
// request streams at or above a target speed and gets its first token within a target
// time (Of), names what stops it (the per-user speed, the TTFT, the KV cache, or that
// nothing was measured beyond), and scales it per GPU, per kW of measured power and per
// $/h of the machine's price. An open-loop document's answer is its highest request
// rate meeting the SLO (OfRates).
//
// It is a pure function of the document and the targets, importing only rundoc and
// stats: llmbench run, report, calc and the site's metric registry all call it, so
// every place a user looks shows the same figure. docs/capacity.md says what the
// figure means, how it is computed and what it is not.
package capacity

import (
	"cmp"
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Limit names what stops a row's capacity from going higher.
type Limit string

const (
	// LimitSpeed: the next measured column's requests stream below the target speed.
	LimitSpeed Limit = "speed"
	// LimitTTFT: the next measured column's first tokens come later than the target.
	LimitTTFT Limit = "ttft"
	// LimitKVCache: the next column is over capacity: that many requests at this
	// context would not fit the server's KV cache (or its limits), so it never ran.
	LimitKVCache Limit = "kv_cache"
	// LimitNotMeasured: no column beyond was measured (the plan ended, or the next
	// cell failed, was invalid or was interrupted): the server may serve more.
	LimitNotMeasured Limit = "not_measured"
)

// Row is one context row's answer.
type Row struct {
	Context int `json:"context"`
	// Users is the largest number of simultaneous requests that met both targets, with
	// every smaller measured column meeting them too; 0 when the first column did not.
	Users int `json:"users"`
	// Interpolated marks a Users between two measured columns (Measured, which met the
	// targets, and Next, which did not), found on log₂ N; false when Users is Measured.
	Interpolated bool `json:"interpolated,omitempty"`
	// Measured is the largest measured column that met the targets (0: none did).
	Measured int   `json:"measured"`
	Limit    Limit `json:"limit"`
	// Next is the column that stopped the scan (the failing, over-capacity or
	// unmeasured cell), 0 when the plan had no column beyond Measured; NextStatus its
	// status, and NextTokS and NextTTFTMs the figures it was judged by when it ran.
	Next       int           `json:"next,omitempty"`
	NextStatus rundoc.Status `json:"next_status,omitempty"`
	// NextReason is that cell's own reason (why it is over capacity, failed or invalid).
	NextReason string   `json:"next_reason,omitempty"`
	NextTokS   *float64 `json:"next_tok_s,omitempty"`
	NextTTFTMs *float64 `json:"next_ttft_ms,omitempty"`
	// FromInterval says the cells were judged by their 95% intervals (at least one of
	// the cells judged had one).
	FromInterval bool `json:"from_interval,omitempty"`
	// Scaled figures: Users per GPU of the machine, per kW of the power measured at
	// that load, and per $/h of the machine's price (absent where unknown).
	PerGPU     *float64 `json:"per_gpu,omitempty"`
	PerKW      *float64 `json:"per_kw,omitempty"`
	PerUSDHour *float64 `json:"per_usd_hour,omitempty"`
}

// Answered reports whether the row says anything: false when its first column was not
// measured validly, so not even one user is known to be served or refused.
func (r Row) Answered() bool { return r.Users > 0 || r.Limit != LimitNotMeasured }

// Answer is a document's capacity at one set of targets.
type Answer struct {
	Targets Targets `json:"targets"`
	// Predicted: the cells are the calculator's predictions, not measurements.
	Predicted bool  `json:"predicted,omitempty"`
	Rows      []Row `json:"rows"`
}

// Of is the capacity of every context row of run at targets t.
func Of(run *rundoc.Run, t Targets) Answer {
	a := Answer{Targets: t, Predicted: run.Kind() == rundoc.RunPredicted}
	for _, ctx := range contexts(run) {
		a.Rows = append(a.Rows, rowOf(run, ctx, t))
	}
	return a
}

// Row returns the answer's row at context, if it has one.
func (a Answer) Row(context int) (Row, bool) {
	i := slices.IndexFunc(a.Rows, func(r Row) bool { return r.Context == context })
	if i < 0 {
		return Row{}, false
	}
	return a.Rows[i], true
}

// rowOf walks a row's columns from the fewest requests up: every column must meet both
// targets; the first that does not (or is over capacity, or has no valid figures) ends
// the walk. A column that fails ends it even when a larger one would pass: with that
// many users, at times only the smaller number is active, and it must be served too.
func rowOf(run *rundoc.Run, ctx int, t Targets) Row {
	row := Row{Context: ctx, Limit: LimitNotMeasured}
	var last judged
	for _, c := range columns(run, ctx) {
		j := judge(c, t)
		row.FromInterval = row.FromInterval || j.fromInterval
		if j.valid && j.pass {
			row.Users, row.Measured, last = c.Concurrency, c.Concurrency, j
			continue
		}
		row.Next, row.NextStatus, row.NextReason = c.Concurrency, c.Status, c.Reason
		switch {
		case c.Status == rundoc.StatusOverCapacity:
			row.Limit = LimitKVCache
		case !j.valid:
			row.Limit = LimitNotMeasured
		default:
			row.NextTokS, row.NextTTFTMs = &j.tokS, &j.ttftMs
			row.Limit = j.limit(t)
			if row.Measured > 0 {
				row.Users, row.Limit = interpolate(last, j, t)
				row.Interpolated = row.Users > row.Measured
			}
		}
		break
	}
	scale(run, &row)
	return row
}

// columns are a row's decode cells, by concurrency ascending (the first of a repeated one).
func columns(run *rundoc.Run, ctx int) []*rundoc.DecodeCell {
	var out []*rundoc.DecodeCell
	for i := range run.Decode {
		c := &run.Decode[i]
		if c.Context == ctx && c.Concurrency > 0 && !slices.ContainsFunc(out, func(o *rundoc.DecodeCell) bool { return o.Concurrency == c.Concurrency }) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *rundoc.DecodeCell) int { return cmp.Compare(a.Concurrency, b.Concurrency) })
	return out
}

// contexts are the plan's decode contexts, then any a cell has that the plan lacks
// (ascending), as the report's matrix orders its rows.
func contexts(run *rundoc.Run) []int {
	var out, extra []int
	for _, c := range run.Config.Contexts {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, c := range run.Decode {
		if !slices.Contains(out, c.Context) && !slices.Contains(extra, c.Context) {
			extra = append(extra, c.Context)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// interpolate places the crossing of the targets between a passing column a and the
// failing column b after it, linearly on log₂ N for each figure the judge read; the
// earlier crossing wins and names the limit. Users is the whole number of requests at
// or below the crossing, never below a's column (and, as the crossing lies before b,
// always below b's).
func interpolate(a, b judged, t Targets) (int, Limit) {
	xa, xb := math.Log2(float64(a.n)), math.Log2(float64(b.n))
	x, limit := xb, b.limit(t)
	if b.tokS < t.TokS && a.tokS > b.tokS {
		if xs := xa + (a.tokS-t.TokS)/(a.tokS-b.tokS)*(xb-xa); xs < x {
			x, limit = xs, LimitSpeed
		}
	}
	if b.ttftMs > t.TTFTMs && b.ttftMs > a.ttftMs {
		if xt := xa + (t.TTFTMs-a.ttftMs)/(b.ttftMs-a.ttftMs)*(xb-xa); xt < x {
			x, limit = xt, LimitTTFT
		}
	}
	users := int(math.Floor(math.Exp2(x) + 1e-9))
	return min(max(users, a.n), b.n-1), limit
}
