package ui

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site/history"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// The history page: a GPU × model's single-stream decode across engine versions
// (internal/site/history), one chart and table per engine and weight format.

type historyData struct {
	H      wire.History
	Series []historySeries
}

// historySeries is one engine and weight format: its chart and a row per version.
type historySeries struct {
	ID    string // the chart's id: hist-1, hist-2, …
	Title string
	SVG   template.HTML
	Rows  []historyRow
}

// historyRow is one version as the table shows it.
type historyRow struct {
	Version   string // "unknown" in the page's language when the runs say none
	ByDate    bool
	Best      string // the best figure with its interval: "48.2 ± 0.6"
	BestURL   string
	Runs      int
	FirstDate string
}

// History shows GET /history?gpu=G&model=M[&quant=Q].
func (s *Pages) History(w http.ResponseWriter, r *http.Request) {
	lang := locale.FromRequest(r)
	q, ferr := history.FromQuery(r.URL.Query())
	if ferr != nil {
		s.BadRequest(w, r, ferr)
		return
	}
	h, err := history.Load(r.Context(), s.store, q)
	if err != nil {
		s.serverError(w, r, "reading a history", err)
		return
	}
	d := historyData{H: h}
	for i, se := range h.Series {
		d.Series = append(d.Series, historyView(lang, i, se))
	}
	s.render(w, r, http.StatusOK, "history", "", locale.T(lang, "history_title", h.Model, h.GPU), d)
}

// historyView draws one series' chart and writes its table.
func historyView(lang string, i int, se wire.HistorySeries) historySeries {
	v := historySeries{ID: fmt.Sprintf("hist-%d", i+1), Title: se.Engine}
	if se.Quantization != "" {
		v.Title = locale.T(lang, "history_series", se.Engine, se.Quantization)
	}
	var labels []string
	var best []report.XY
	var marks []report.Mark
	for x, ver := range se.Versions {
		label := ver.Version
		if label == "" {
			label = locale.T(lang, "history_unknown_version")
		}
		labels = append(labels, label)
		best = append(best, report.XY{X: float64(x), Y: ver.Best.DecodeTokS,
			Title: locale.T(lang, "history_best_hover", label, report.FormatNumber(lang, ver.Best.DecodeTokS, 1))})
		for _, p := range ver.Runs {
			m := report.Mark{X: x, Y: p.DecodeTokS, Title: locale.T(lang, "history_run_hover", label, report.FormatNumber(lang, p.DecodeTokS, 1),
				plusMinusText(lang, p.DecodeTokS, p.CI, 1), p.CreatedAt.Format("2006-01-02"), p.RunID)}
			if p.CI != nil {
				m.Low, m.High, m.HasInterval = p.CI.Low, p.CI.High, true
			}
			marks = append(marks, m)
		}
		v.Rows = append(v.Rows, historyRow{Version: label, ByDate: ver.ByDate, Runs: len(ver.Runs),
			Best:      report.FormatNumber(lang, ver.Best.DecodeTokS, 1) + " " + plusMinusText(lang, ver.Best.DecodeTokS, ver.Best.CI, 1),
			BestURL:   "/runs/" + pathEscape(ver.Best.RunID),
			FirstDate: ver.Runs[0].CreatedAt.Format("2006-01-02")})
	}
	v.SVG = report.HistoryChart(lang, v.ID, v.Title, locale.T(lang, "history_axis_version"), locale.T(lang, "history_axis_decode"),
		labels, locale.T(lang, "history_legend_best"), best, locale.T(lang, "history_legend_runs"), marks)
	return v
}

// historyLink is one history a GPU's or model's page links: the other of the pair
// (the model run on the GPU, the GPU the model ran on) and how many runs it has.
type historyLink struct {
	Name, URL string
	Runs      int
}

// historyLinks are the histories of a GPU's or a model's pairs, most runs first (at
// most maxHistoryLinks), from the store's counts of pairs.
func (s *Pages) historyLinks(ctx context.Context, dim, name string) ([]historyLink, error) {
	pairs, err := s.store.HistoryPairs(ctx, dim, name, maxHistoryLinks)
	if err != nil {
		return nil, err
	}
	var out []historyLink
	for _, p := range pairs {
		other := p.Model
		if dim == "model" {
			other = p.GPU
		}
		v := url.Values{"gpu": {p.GPU}, "model": {p.Model}}
		out = append(out, historyLink{Name: other, URL: "/history?" + v.Encode(), Runs: p.Runs})
	}
	return out, nil
}

// maxHistoryLinks is how many histories a group page links.
const maxHistoryLinks = 24
