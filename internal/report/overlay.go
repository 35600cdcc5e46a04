package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/overlay"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the overlay section: a run laid over the best run of its GPU and
// model, cell by cell (llmbench report --against, the site's run and upload pages).
// Which figures are marked is overlay.Judge's to say; this file only writes it.

// Baseline is the run another is laid over, and where it was found (its page).
type Baseline struct {
	Run *rundoc.Run
	URL string
}

// OverlayView is the overlay as every format writes it: the heading's line, one row
// per figure of a cell (its texts, and its mark's class for a page), the count of
// marked figures and the rule.
type OverlayView struct {
	Sub       string
	BestTitle string // the best run's title, for a page that links to it
	Head      []string
	Rows      []OverlayRow
	Summary   string
	Rule      string
}

// OverlayRow is one figure of one cell: Cells in Head's order; Mark the overlay's
// mark (overlay.Mark), the class a page colours it by.
type OverlayRow struct {
	Cells []string
	Mark  overlay.Mark
}

// NewOverlayView writes the overlay of mine over b in lang.
func NewOverlayView(lang string, mine *rundoc.Run, b Baseline) *OverlayView {
	lang = locale.Norm(lang)
	o := overlay.Of(mine, b.Run)
	v := &OverlayView{Sub: locale.T(lang, "ov_sub", runTitle(b.Run, lang), b.URL), BestTitle: runTitle(b.Run, lang), Rule: locale.T(lang, "ov_rule")}
	for _, k := range []string{"phase", "context", "requests_at_once", "ov_figure", "ov_mine", "ov_best", "ov_delta", "ov_mark"} {
		v.Head = append(v.Head, locale.T(lang, k))
	}
	noise := 0
	for _, r := range o.Rows {
		phase, n := locale.T(lang, "phase_decode"), FormatInt(lang, r.Concurrency)
		if r.Prefill {
			phase, n = locale.T(lang, "phase_prefill"), dash
		}
		for _, f := range r.Figures {
			if !rundoc.Measured(f.Mine.V) && !rundoc.Measured(f.Best.V) {
				continue // over capacity (or failed) on both sides: nothing to lay over
			}
			if f.Mark == overlay.Noise {
				noise++
			}
			v.Rows = append(v.Rows, OverlayRow{Mark: f.Mark, Cells: []string{phase, rundoc.FormatTokens(r.Context), n,
				locale.T(lang, figureLabel[f.Name]), overlayValue(lang, f.Name, f.Mine), overlayValue(lang, f.Name, f.Best),
				overlayDelta(lang, f), locale.T(lang, "ov_"+string(f.Mark))}})
		}
	}
	better, worse := o.Marked()
	v.Summary = locale.T(lang, "ov_summary", better+worse, better, worse, noise)
	return v
}

// figureLabel names each overlay figure by its label key.
var figureLabel = map[string]string{"prompt_tok_s": "prompt_toks", "total_tok_s": "total_toks", "ttft_ms": "ttft"}

// overlayValue writes one side's figure and its interval: "48.2 (47.9–48.5)", "85 ms
// (81–89)"; a
// cell's status where it has no figure, "—" where the run has no such cell.
func overlayValue(lang, name string, v overlay.Value) string {
	if v.Status == "" {
		return dash
	}
	if !rundoc.Measured(v.V) {
		return statusLabel(lang, v.Status)
	}
	decimals, unit := 1, func(s string) string { return s }
	if strings.HasSuffix(name, "_ms") {
		decimals, unit = 0, func(s string) string { return locale.T(lang, "ms", s) }
	}
	s := unit(FormatNumber(lang, v.V, decimals))
	if v.CI != nil {
		s += " (" + FormatNumber(lang, v.CI.Low, decimals) + "–" + FormatNumber(lang, v.CI.High, decimals) + ")"
	}
	if v.Status != rundoc.StatusValid {
		s += " · " + statusLabel(lang, v.Status)
	}
	return s
}

// overlayDelta writes mine against best in percent: "-3.8%".
func overlayDelta(lang string, f overlay.Figure) string {
	if f.Delta == nil {
		return dash
	}
	return fmt.Sprintf("%+.1f%%", 100**f.Delta)
}

// writeOverlayText writes the overlay section in text or Markdown.
func writeOverlayText(b *strings.Builder, lang string, ov *OverlayView, p painter, md bool) {
	if ov == nil {
		return
	}
	right := []bool{false, true, true, false, true, true, true, false}
	var rows [][]string
	for _, r := range ov.Rows {
		rows = append(rows, r.Cells)
	}
	if md {
		fmt.Fprintf(b, "\n## %s\n\n%s\n\n", locale.T(lang, "ov_title"), mdEscape(ov.Sub))
		mdTable(b, ov.Head, right, rows)
		fmt.Fprintf(b, "\n%s\n\n%s\n", mdEscape(ov.Summary), mdEscape(ov.Rule))
		return
	}
	b.WriteString("\n" + p.paint(ansiBold, locale.T(lang, "ov_title")) + " — " + ov.Sub + "\n")
	styles := make([][]string, len(ov.Rows))
	for i, r := range ov.Rows {
		styles[i] = make([]string, len(r.Cells))
		switch r.Mark {
		case overlay.Better:
			styles[i][len(r.Cells)-1] = ansiGreen
		case overlay.Worse:
			styles[i][len(r.Cells)-1] = ansiRed
		}
	}
	writeTableKeys(b, p, 4, ov.Head, right, rows, styles)
	b.WriteString("\n" + ov.Summary + "\n" + ov.Rule + "\n")
}

// writeAgainst is Write with the run laid over the one opts.FindAgainst finds for it.
func writeAgainst(w io.Writer, run *rundoc.Run, opts Options) error {
	if opts.FindAgainst != nil {
		b, err := opts.FindAgainst(run)
		if err != nil {
			return err
		}
		opts.Against = b
	}
	return Write(w, run, opts)
}
