package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// plusMinus is a figure with its interval as "48.2 ± 0.6": the larger of the distances
// from the value to either end (an interval over repeats need not be symmetric). A
// figure without an interval (a document from before intervals) is left as it is.
func plusMinus(lang, text string, v float64, iv *stats.Interval, decimals int) string {
	if iv == nil {
		return text
	}
	h := math.Max(v-iv.Low, iv.High-v)
	return text + " ± " + FormatNumber(lang, h, decimals)
}

// ciSpan writes an interval "47.6–48.8".
func ciSpan(lang string, iv stats.Interval, decimals int) string {
	return FormatNumber(lang, iv.Low, decimals) + "–" + FormatNumber(lang, iv.High, decimals)
}

// cellIntervals is a cell's intervals, empty (not nil) for a cell without any.
func cellIntervals(c *rundoc.DecodeCell) *rundoc.CellIntervals {
	if c.CellIntervals == nil {
		return &rundoc.CellIntervals{}
	}
	return c.CellIntervals
}

func prefillIntervals(p *rundoc.PrefillRow) *rundoc.PrefillIntervals {
	if p.PrefillIntervals == nil {
		return &rundoc.PrefillIntervals{}
	}
	return p.PrefillIntervals
}

// intervalSpans writes a row's intervals that it has: its rate (tok/s), TTFT and TBT.
func intervalSpans(lang string, rate, ttft, tbt *stats.Interval) []string {
	var parts []string
	if rate != nil {
		parts = append(parts, ciSpan(lang, *rate, 1)+" tok/s")
	}
	if ttft != nil {
		parts = append(parts, "TTFT "+locale.T(lang, "ms", ciSpan(lang, *ttft, 0)))
	}
	if tbt != nil {
		parts = append(parts, "TBT "+locale.T(lang, "ms", ciSpan(lang, *tbt, 1)))
	}
	return parts
}

// intervalInfo lists a cell's intervals and repeats for its details (the matrix
// cell's hover, the notes): nothing for a document without them.
func intervalInfo(lang string, c *rundoc.DecodeCell) []string {
	ci := c.CellIntervals
	if ci == nil || c.DecodeFigures == nil {
		return nil
	}
	parts := intervalSpans(lang, ci.TotalTokSCI, ci.TTFTMsCI, ci.TBTMsCI)
	var rates []string
	for _, r := range ci.Repeats {
		if r.DecodeFigures == nil || r.Status != rundoc.StatusValid {
			rates = append(rates, StatusLabel(lang, r.Status))
			continue
		}
		rates = append(rates, figureOr(r.TotalTokS, FormatNumber(lang, r.TotalTokS, 1)))
	}
	out := intervalLines(lang, parts, ci.CIMethod, "n_repeats", rates, publishedNote(lang, ci.PublishedRepeat, ci.PublishedWhy, len(ci.Repeats)))
	if ci.Unstable {
		out = append(out, locale.T(lang, "n_unstable_hint"))
	}
	return out
}

// prefillIntervalInfo is intervalInfo of a prefill row: its intervals, its repeats'
// prompt tok/s and which one it publishes.
func prefillIntervalInfo(lang string, p *rundoc.PrefillRow) []string {
	pi := p.PrefillIntervals
	if pi == nil || p.PrefillFigures == nil {
		return nil
	}
	parts := intervalSpans(lang, pi.PromptTokSCI, pi.TTFTMsCI, nil)
	var rates []string
	for _, r := range pi.Repeats {
		if r.PrefillFigures == nil || r.Status != rundoc.StatusValid {
			rates = append(rates, StatusLabel(lang, r.Status))
			continue
		}
		rates = append(rates, FormatNumber(lang, r.PromptTokS, 1))
	}
	return intervalLines(lang, parts, pi.CIMethod, "n_repeats_prompt", rates, publishedNote(lang, pi.PublishedRepeat, pi.PublishedWhy, len(pi.Repeats)))
}

// intervalLines are a measurement's interval line (its parts and method), its
// repeats' figures under repeatsKey where it has more than one, and its published
// note.
func intervalLines(lang string, parts []string, method, repeatsKey string, repeats []string, published string) []string {
	var out []string
	if len(parts) > 0 {
		line := locale.T(lang, "n_ci", strings.Join(parts, ", "))
		if m := ciMethodLabel(lang, method); m != "" {
			line += " " + locale.T(lang, "n_ci_method", m)
		}
		out = append(out, line)
	}
	if len(repeats) > 1 {
		out = append(out, locale.T(lang, repeatsKey, len(repeats), strings.Join(repeats, ", ")))
	}
	if published != "" {
		out = append(out, published)
	}
	return out
}

func ciMethodLabel(lang, method string) string {
	switch method {
	case rundoc.CIMethodWindow:
		return locale.T(lang, "ci_batch_means")
	case rundoc.CIMethodRepeats:
		return locale.T(lang, "ci_repeats")
	case rundoc.CIMethodTwoRepeats:
		return locale.T(lang, "ci_two_repeats")
	case rundoc.CIMethodRate:
		return locale.T(lang, "ci_rate")
	}
	return method
}

// csvIntervalColumns follow the other extensions: each interval as low and high.
var csvIntervalColumns = []string{
	"total_tok_s_low", "total_tok_s_high", "ttft_ms_low", "ttft_ms_high", "tbt_ms_low", "tbt_ms_high",
	"prompt_tok_s_low", "prompt_tok_s_high", "ci_method", "repeats", "unstable",
}

func csvInterval(set func(k, v string), name string, iv *stats.Interval) {
	if iv != nil {
		set(name+"_low", num(iv.Low))
		set(name+"_high", num(iv.High))
	}
}

func csvDecodeIntervals(set func(k, v string), c *rundoc.DecodeCell) {
	if ci := c.CellIntervals; ci != nil {
		csvIntervals(set, ci.CIMethod, len(ci.Repeats), &ci.Unstable,
			map[string]*stats.Interval{"total_tok_s": ci.TotalTokSCI, "ttft_ms": ci.TTFTMsCI, "tbt_ms": ci.TBTMsCI})
	}
}

func csvPrefillIntervals(set func(k, v string), p *rundoc.PrefillRow) {
	if pi := p.PrefillIntervals; pi != nil {
		csvIntervals(set, pi.CIMethod, len(pi.Repeats), nil,
			map[string]*stats.Interval{"prompt_tok_s": pi.PromptTokSCI, "ttft_ms": pi.TTFTMsCI})
	}
}

// csvIntervals writes a measurement's intervals by name, how they were computed, and
// its repeats (with whether they disagree, where it is judged: a cell's).
func csvIntervals(set func(k, v string), method string, repeats int, unstable *bool, ivs map[string]*stats.Interval) {
	for name, iv := range ivs {
		csvInterval(set, name, iv)
	}
	set("ci_method", method)
	if repeats > 0 {
		set("repeats", strconv.Itoa(repeats))
		if unstable != nil {
			set("unstable", strconv.FormatBool(*unstable))
		}
	}
}
