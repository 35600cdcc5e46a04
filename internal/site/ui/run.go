package ui

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

func (s *Pages) loadRun(ctx context.Context, id string) (store.RunRecord, *rundoc.Run, error) {
	rec, doc, err := s.store.Run(ctx, id)
	if err != nil {
		return rec, nil, err
	}
	var run rundoc.Run
	if err := json.Unmarshal(doc, &run); err != nil {
		return rec, nil, fmt.Errorf("decoding stored run %s: %w", id, err)
	}
	return rec, &run, nil
}

type runPageData struct {
	runView
	Styles template.CSS
	Versus *versusView
	// Rated: an open-loop run; RateChart its goodput and achieved rate by rate, and
	// RateRows its cells (for the site's own view, without the report body).
	Rated     bool
	RateChart *chartView
	RateRows  []rateRunRow
	// ReportTooLarge: the report body was over maxRunReportBytes, so the page shows
	// the site's own view of the run (runreport.go).
	ReportTooLarge bool
	// Accuracy is the run's evaluations (accuracy.go), shown beside its speed.
	Accuracy template.HTML
	// Against is the run laid over the best of its GPU and model (against.go).
	Against *againstView
}

// rateRunRow is one rate cell of an open-loop run, for the site's own view.
type rateRunRow struct {
	Rate string
	rateCompareCell
}

// RunPage shows GET /runs/{id}: a run, its report, and the calculator beside it.
func (s *Pages) RunPage(w http.ResponseWriter, r *http.Request) {
	rec, run, err := s.board.Run(r.Context(), r.PathValue("id"))
	if !s.found(w, r, "reading a run", err) {
		return
	}
	lang := locale.FromRequest(r)
	d := runPageData{runView: newRunView(rec, run, lang), Versus: s.versus(r.Context(), rec, run, lang), Accuracy: accuracyHTML(run, lang),
		Against: s.runAgainst(r.Context(), run, lang)}
	if d.Rated = metric.ModeOf(run) == metric.ModeRate; d.Rated {
		d.RateChart = rateRunChart(run, lang)
		for i := range run.Rate {
			d.RateRows = append(d.RateRows, rateRunRow{Rate: rateText(lang, run.Rate[i].RateRPS), rateCompareCell: rateCellView(lang, &run.Rate[i])})
		}
	}
	if s.report != nil {
		// The sentences llmbench wrote into the document, in the page's language; its
		// accuracy the page shows beside the speed figures, not again in the report.
		body, err := s.reportBody(withoutAccuracy(docIn(run, lang)), lang)
		switch {
		case errors.Is(err, errReportTooLarge):
			d.ReportTooLarge = true
		case err != nil:
			s.log.Warn("rendering the report body; showing the site's own view", "id", rec.ID, "err", err)
		default:
			d.Report = template.HTML(body) // html/template output of the report package
			d.Styles = template.CSS(s.report.Styles())
			// The report's own few lines of script (sorting, copy) are allowed by hash,
			// so the policy still refuses any other inline script.
			w.Header().Set("Content-Security-Policy", cspWithScripts(body))
		}
	}
	s.render(w, r, http.StatusOK, "run", "runs", rec.Title, d)
}

var inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// cspWithScripts is the site's policy plus the hashes of the inline scripts in html.
func cspWithScripts(html string) string {
	var hashes []string
	for _, m := range inlineScript.FindAllStringSubmatch(html, -1) {
		h := sha256.Sum256([]byte(m[1]))
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'")
	}
	return strings.Replace(ContentSecurityPolicy, "script-src 'self'", "script-src 'self' "+strings.Join(hashes, " "), 1)
}
