package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the capacity section ("how many users"): its sentences and table,
// computed by internal/capacity, in every language.

// capacityView is the capacity section as every format shows it.
type capacityView struct {
	Sub       string
	Sentences []string // one per context row (or the open-loop sentence)
	// The table: context × target speed, at the TTFT target.
	TableSub string
	Head     []string
	Rows     [][]string
	Notes    []string
	// Summary is what the section says, as numbers (the csv and json formats).
	Summary *capacity.Summary
}

// Table is the section's table for the html page.
func (c *capacityView) Table() keyedTable {
	return keyedTable{Class: "lb-capacity-table", Head: c.Head, Rows: c.Rows}
}

// capacityTargets are opts' targets, or the defaults.
func capacityTargets(opts Options) capacity.Targets {
	if opts.Capacity == (capacity.Targets{}) {
		return capacity.DefaultTargets()
	}
	return opts.Capacity
}

// newCapacityView computes the section from src (the rendered document, or the one
// opts.CapacityFrom names) in lang; nil when the document has nothing to answer with.
func newCapacityView(run *rundoc.Run, opts Options, lang string) *capacityView {
	src := run
	if opts.CapacityFrom != nil {
		src = opts.CapacityFrom
	}
	t := capacityTargets(opts)
	sum := capacity.Summarize(src, t)
	if sum == nil {
		return nil
	}
	cv := &capacityView{Summary: sum, Sub: locale.T(lang, "cap_sub")}
	if sum.Rate != nil {
		cv.Sub, cv.Sentences = locale.T(lang, "cap_sub_rate"), []string{rateSentence(lang, sum.Rate)}
		return cv
	}
	for _, r := range sum.Rows {
		cv.Sentences = append(cv.Sentences, rowSentence(lang, t, r, capacity.GPUs(src)))
	}
	cv.TableSub = locale.T(lang, "cap_table_sub", durationText(lang, t.TTFTMs))
	cv.Head = []string{locale.T(lang, "context")}
	for _, a := range sum.Table {
		cv.Head = append(cv.Head, locale.T(lang, "cap_col", trimNumber(lang, a.Targets.TokS)))
	}
	for i, r := range sum.Rows {
		row := []string{rundoc.FormatTokens(r.Context)}
		for _, a := range sum.Table {
			row = append(row, tableCell(lang, a.Rows[i]))
		}
		cv.Rows = append(cv.Rows, row)
	}
	if sum.Predicted && opts.CapacityFrom != nil {
		cv.Notes = append(cv.Notes, locale.T(lang, "cap_note_predicted"))
	}
	cv.Notes = append(cv.Notes, locale.T(lang, "cap_note"))
	return cv
}

// CapacitySentences are the capacity section's sentences, one per context row (one
// for an open-loop run): what llmbench run prints last.
func CapacitySentences(run *rundoc.Run, opts Options) []string {
	if cv := newCapacityView(run, opts, locale.Norm(opts.Lang)); cv != nil {
		return cv.Sentences
	}
	return nil
}

// rowSentence is one row's answer: "At 16K context: 2 users at ≥ 20 tok/s each, first
// token ≤ 1 s (limit: KV cache — 4 would not fit)." with its figures per GPU (on a
// machine of several), per kW and per $/h where known.
func rowSentence(lang string, t capacity.Targets, r capacity.Row, gpus int) string {
	ctx := rundoc.FormatTokens(r.Context)
	if !r.Answered() {
		return locale.T(lang, "cap_sentence_none", ctx, locale.T(lang, "cap_first_cell", strconv.Itoa(r.Next), lowerStatus(lang, r.NextStatus)))
	}
	users := usersText(lang, r.Users)
	if r.Interpolated {
		users = locale.T(lang, "cap_interpolated", users, strconv.Itoa(r.Measured), strconv.Itoa(r.Next))
	}
	limit := limitText(lang, r)
	var scaled []string
	if r.PerGPU != nil && gpus > 1 {
		scaled = append(scaled, locale.T(lang, "cap_per_gpu", FormatNumber(lang, *r.PerGPU, 1)))
	}
	if r.PerKW != nil {
		scaled = append(scaled, locale.T(lang, "cap_per_kw", FormatNumber(lang, *r.PerKW, 1)))
	}
	if r.PerUSDHour != nil {
		scaled = append(scaled, locale.T(lang, "cap_per_usd_h", FormatNumber(lang, *r.PerUSDHour, 2)))
	}
	if len(scaled) > 0 && r.Users > 0 { // 0 per GPU says nothing the sentence does not
		limit = locale.T(lang, "cap_scaled", limit, strings.Join(scaled, locale.T(lang, "cap_and")))
	}
	return locale.T(lang, "cap_sentence", ctx, users, targetsText(lang, t), limit)
}

// limitText names what stopped the row, with the figure that did.
func limitText(lang string, r capacity.Row) string {
	next := strconv.Itoa(r.Next)
	switch r.Limit {
	case capacity.LimitKVCache:
		return locale.T(lang, "cap_limit_kv", next)
	case capacity.LimitSpeed:
		return locale.T(lang, "cap_limit_speed", next, FormatNumber(lang, deref(r.NextTokS), 1))
	case capacity.LimitTTFT:
		return locale.T(lang, "cap_limit_ttft", next, FormatMs(lang, deref(r.NextTTFTMs), 0))
	}
	if r.Next > 0 {
		return locale.T(lang, "cap_limit_cell", strconv.Itoa(r.Measured), next, lowerStatus(lang, r.NextStatus))
	}
	return locale.T(lang, "cap_limit_beyond", strconv.Itoa(r.Measured))
}

// tableCell is a row's answer in the table: "8 (KV cache)", "12 (speed, interpolated)".
func tableCell(lang string, r capacity.Row) string {
	if !r.Answered() {
		return locale.T(lang, "cap_short_none")
	}
	limit := locale.T(lang, "cap_short_"+map[capacity.Limit]string{capacity.LimitKVCache: "kv", capacity.LimitSpeed: "speed", capacity.LimitTTFT: "ttft", capacity.LimitNotMeasured: "beyond"}[r.Limit])
	if r.Interpolated {
		limit = locale.T(lang, "cap_short_interp", limit)
	}
	return locale.T(lang, "cap_cell", FormatInt(lang, r.Users), limit)
}

// lowerStatus is a status as a word inside a sentence: "invalid".
func lowerStatus(lang string, st rundoc.Status) string { return strings.ToLower(statusLabel(lang, st)) }

func usersText(lang string, n int) string {
	switch n {
	case 0:
		return locale.T(lang, "cap_users_0")
	case 1:
		return locale.T(lang, "cap_users_1")
	}
	return locale.T(lang, "cap_users_n", FormatInt(lang, n))
}

// targetsText is "≥ 20 tok/s each, first token ≤ 1 s".
func targetsText(lang string, t capacity.Targets) string {
	return locale.T(lang, "cap_targets", trimNumber(lang, t.TokS), durationText(lang, t.TTFTMs))
}

// durationText writes a latency target: whole tenths of a second from 1 s up in
// seconds ("1 s", "1.5 s"), anything else in ms ("500 ms").
func durationText(lang string, ms float64) string {
	if ms >= 1000 && math.Mod(ms, 100) == 0 {
		return locale.T(lang, "cap_ms_or_s_seconds", trimNumber(lang, ms/1000))
	}
	return FormatMs(lang, ms, decimalsOf(ms))
}

// trimNumber writes v with as few decimals as it needs (up to 2): 20, 12.5.
func trimNumber(lang string, v float64) string { return FormatNumber(lang, v, decimalsOf(v)) }

func decimalsOf(v float64) int {
	for d := 0; d < 2; d++ {
		p := math.Pow(10, float64(d))
		if math.Abs(v*p-math.Round(v*p)) < 1e-9 {
			return d
		}
	}
	return 2
}

func deref(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// CapacityCell is a row's answer as the capacity table writes it, for pages that lay
// their own table out (the site's compare page): "8 (KV cache)", "12 (speed,
// interpolated)".
func CapacityCell(lang string, r capacity.Row) string { return tableCell(locale.Norm(lang), r) }
