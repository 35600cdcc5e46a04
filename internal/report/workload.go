package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The workload section (docs/workloads.md): what a run sent besides random words, and
// per cell the prefix cache's hits achieved against the ideal and, for sessions, the
// figures of each turn. Every format writes it from one view.

// workloadView is the section's text, in the view's language.
type workloadView struct {
	Plan  string
	Cells []workloadCell
}

// workloadCell is one cell's workload figures: where (a matrix cell or a rate), its
// summary line, and the table of its turns (none without sessions).
type workloadCell struct {
	Where   string
	Summary string
	Head    []string
	Rows    [][]string
}

// newWorkloadView is the section for run, nil when it sent no workload.
func newWorkloadView(run *rundoc.Run, lang string) *workloadView {
	w := run.Config.Workload
	if w == nil && run.Config.PromptSource == "" {
		return nil
	}
	wv := &workloadView{Plan: workloadPlan(lang, &run.Config)}
	for i := range run.Decode {
		c := &run.Decode[i]
		if c.Workload != nil {
			wv.Cells = append(wv.Cells, workloadCellView(lang, fmt.Sprintf("%s × %d", rundoc.FormatTokens(c.Context), c.Concurrency), c.Workload))
		}
	}
	for _, c := range sortedByRate(rateCellPtrs(run)) {
		if c.Workload != nil {
			wv.Cells = append(wv.Cells, workloadCellView(lang, RateLabel(lang, run.SessionRates(), c.RateRPS), c.Workload))
		}
	}
	return wv
}

func rateCellPtrs(run *rundoc.Run) []*rundoc.RateCell {
	out := make([]*rundoc.RateCell, len(run.Rate))
	for i := range run.Rate {
		out[i] = &run.Rate[i]
	}
	return out
}

// workloadPlan says what the run sent: "Sessions of 4 turns (128-token messages,
// think 0s) · prefix-cache blocks of 16".
func workloadPlan(lang string, c *rundoc.Config) string {
	var parts []string
	if src := c.PromptSource; src != "" {
		parts = append(parts, locale.T(lang, "wl_prompt_text", strings.TrimPrefix(src, "text:")))
	}
	w := c.Workload
	if w == nil {
		return strings.Join(parts, " · ")
	}
	if d := w.Dataset; d != nil {
		parts = append(parts, locale.T(lang, "wl_dataset", d.File, labelOr(lang, "wl_format_"+d.Format, d.Format), FormatInt(lang, d.Entries)))
	}
	if s := w.Sessions; s != nil {
		msg := locale.T(lang, "wl_dataset_turns")
		if s.UserTokens > 0 {
			msg = locale.T(lang, "wl_user_tokens", FormatInt(lang, s.UserTokens))
		}
		parts = append(parts, locale.T(lang, "wl_sessions", s.Turns, msg, s.Think))
	}
	if t := w.Trace; t != nil {
		parts = append(parts, locale.T(lang, "wl_trace", t.File, labelOr(lang, "wl_format_"+t.Format, t.Format), FormatInt(lang, t.Requests), strconv.FormatFloat(t.Speed, 'f', -1, 64)))
		if r := t.IdealCacheHitRatio; r != nil {
			parts = append(parts, locale.T(lang, "wl_trace_ideal", FormatPercent(lang, *r)))
		}
	}
	if p := w.PrefixPool; p != nil {
		parts = append(parts, locale.T(lang, "wl_pool", p.Prompts, FormatInt(lang, p.Tokens)))
	}
	if w.CacheBlock > 0 {
		parts = append(parts, locale.T(lang, "wl_block", w.CacheBlock))
	}
	return strings.Join(parts, " · ")
}

// workloadCellView is one cell's summary and turns.
func workloadCellView(lang, where string, w *rundoc.WorkloadFigures) workloadCell {
	c := workloadCell{Where: where}
	var parts []string
	if w.CacheHitRatio != nil || w.IdealCacheHitRatio != nil {
		achieved := locale.T(lang, "wl_unknown")
		if w.CacheHitRatio != nil {
			achieved = FormatPercent(lang, *w.CacheHitRatio)
		}
		s := locale.T(lang, "wl_cache", achieved, FormatInt(lang, w.PromptTokens), optPercent(lang, w.IdealCacheHitRatio))
		if a := w.CacheAchieved; a != nil {
			s += " " + locale.T(lang, "wl_achieved", FormatPercent(lang, *a))
		}
		if w.CacheSource != "" {
			s += " " + locale.T(lang, "wl_source_"+w.CacheSource)
		}
		parts = append(parts, s)
	}
	if w.Sessions > 0 {
		parts = append(parts, locale.T(lang, "wl_sessions_done", FormatInt(lang, w.CompletedSessions), FormatInt(lang, w.Sessions), optNum(lang, w.SessionsPerS, 2)))
	}
	c.Summary = strings.Join(parts, "; ")
	if len(w.Turns) == 0 {
		return c
	}
	for _, k := range []string{"wl_turn", "wl_requests", "wl_prompt_mean", "wl_cached_mean", "wl_ideal_mean", "wl_hit", "wl_ideal_hit", "ttft_pct", "tpot_pct"} {
		c.Head = append(c.Head, locale.T(lang, k))
	}
	for _, t := range w.Turns {
		c.Rows = append(c.Rows, []string{strconv.Itoa(t.Turn), FormatInt(lang, t.Requests),
			optNum(lang, t.PromptTokensMean, 1), optNum(lang, t.CachedTokensMean, 1), optNum(lang, t.IdealCachedMean, 1),
			optPercent(lang, t.CacheHitRatio), optPercent(lang, t.IdealCacheHitRatio),
			pctTriple(lang, t.TTFTMs, 1), pctTriple(lang, t.TPOTMs, 2)})
	}
	return c
}

// workloadRateLengths says, in the rate section's plan line, what a workload's
// requests are in place of random words' lengths ("" for random words, and for a pool,
// whose prompts are random words of those lengths after a shared one).
func workloadRateLengths(lang string, w *rundoc.Workload) string {
	switch {
	case w == nil || w.PrefixPool != nil:
		return ""
	case w.Sessions != nil:
		return locale.T(lang, "wl_rate_sessions", w.Sessions.Turns)
	case w.Trace != nil:
		return locale.T(lang, "wl_rate_trace")
	}
	return locale.T(lang, "wl_rate_dataset")
}

func optPercent(lang string, v *float64) string {
	if v == nil {
		return dash
	}
	return FormatPercent(lang, *v)
}

// workloadRight says which of a turns table's columns are numbers (all but none).
func workloadRight(n int) []bool {
	r := make([]bool, n)
	for i := range r {
		r[i] = true
	}
	return r
}

// writeWorkloadText writes the section in text or Markdown.
func writeWorkloadText(b *strings.Builder, v *view, p painter, md bool) {
	wv := v.Workload
	if wv == nil {
		return
	}
	esc := func(s string) string { return s }
	if md {
		esc = mdEscape
		fmt.Fprintf(b, "\n## %s\n\n%s\n\n%s\n", locale.T(v.Lang, "workload"), locale.T(v.Lang, "workload_sub"), mdEscape(wv.Plan))
	} else {
		b.WriteString("\n" + p.paint(ansiBold, locale.T(v.Lang, "workload")) + " — " + locale.T(v.Lang, "workload_sub") + "\n" + wv.Plan + "\n")
	}
	for _, c := range wv.Cells {
		if md {
			fmt.Fprintf(b, "\n**%s**: %s\n", esc(c.Where), esc(c.Summary))
		} else {
			b.WriteString("\n" + c.Where + ": " + c.Summary + "\n")
		}
		if len(c.Rows) == 0 {
			continue
		}
		if md {
			b.WriteString("\n")
			mdTable(b, c.Head, workloadRight(len(c.Head)), c.Rows)
		} else {
			writeTable(b, p, c.Head, workloadRight(len(c.Head)), c.Rows, nil)
		}
	}
	if len(wv.Cells) > 0 {
		b.WriteString("\n" + esc(locale.T(v.Lang, "note_workload")) + "\n")
	}
}
