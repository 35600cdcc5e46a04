package ui

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/store"
)

// versusView is a run's cells beside what the calculator predicts for its setup.
type versusView struct {
	Input      calc.Input
	Assumed    []string // what the document did not say and the calculator assumed
	Error      string   // why the calculator cannot predict this setup
	Matrix     matrixView
	Prefill    []versusCell
	MedianErr  string
	Cells      int
	KVPredict  string
	KVMeasured string
	CalcURL    string
	// CalcRefused says why there is no link to the calculator (its form refuses the setup).
	CalcRefused string
}

type versusCell struct {
	Context, Measured, Predicted, Diff, Class string
}

// versus predicts a measured run's setup and sets each cell beside the measurement.
func (s *Pages) versus(ctx context.Context, rec store.RunRecord, run *rundoc.Run, lang string) *versusView {
	if s.calc == nil || rec.Kind != rundoc.RunMeasured || (len(run.Decode) == 0 && len(run.Prefill) == 0) {
		return nil // nothing of the matrix measured (an open-loop run): nothing to set beside a prediction
	}
	in, assumed := calc.InputOf(run, rec, lang)
	vv := &versusView{Input: in, Assumed: assumed}
	q := in
	q.Contexts, q.Concurrency, q.PrefillContexts, q.DurationS = nil, nil, nil, 0
	// Link to the calculator only with a setup its form takes: a document may describe
	// one past the form's limits (4,096 GPUs), whose link would only answer 400.
	if _, ferr := calc.FromQuery(q.Query()); ferr != nil {
		vv.CalcRefused = locale.T(lang, "vs_calc_refused", locale.T(lang, "calc_field_"+ferr.Field), ferr.ReasonIn(lang))
	} else {
		vv.CalcURL = "/calculator?" + q.Query().Encode()
	}
	p, err := s.calc.Predict(ctx, in)
	if err != nil {
		vv.Error = calc.AsError(err).Message(lang)
		return vv
	}
	if run.Engine.KVCacheTokens != nil {
		vv.KVMeasured = report.FormatInt(lang, int(*run.Engine.KVCacheTokens))
	}
	vv.KVPredict = report.FormatInt(lang, int(p.Memory.KVTokens))
	contexts, concurrency := axisContexts(run, p.Run), axisConcurrency(run, p.Run)
	vv.Matrix = matrixView{Concurrency: concurrency}
	var errs []float64
	for _, c := range contexts {
		row := matrixRow{Context: rundoc.FormatTokens(c)}
		for _, n := range concurrency {
			cv, e := versusOf(run.Cell(c, n), p.Run.Cell(c, n), lang)
			if e != nil {
				errs = append(errs, *e)
			}
			row.Cells = append(row.Cells, cv)
		}
		vv.Matrix.Rows = append(vv.Matrix.Rows, row)
	}
	for _, m := range run.Prefill {
		vc := versusCell{Context: rundoc.FormatTokens(m.Context), Measured: "—", Predicted: "—"}
		if m.PrefillFigures != nil && m.Status == rundoc.StatusValid {
			vc.Measured = report.FormatNumber(lang, m.PromptTokS, 0)
		}
		for _, pr := range p.Run.Prefill {
			if pr.Context == m.Context && pr.PrefillFigures != nil {
				vc.Predicted = report.FormatNumber(lang, pr.PromptTokS, 0)
				if m.PrefillFigures != nil && m.Status == rundoc.StatusValid && m.PromptTokS > 0 {
					d := (pr.PromptTokS - m.PromptTokS) / m.PromptTokS * 100
					vc.Diff, vc.Class = diffText(d), diffClass(d)
					errs = append(errs, d)
				}
			}
		}
		vv.Prefill = append(vv.Prefill, vc)
	}
	vv.Cells = len(errs)
	if len(errs) > 0 {
		abs := make([]float64, len(errs))
		for i, e := range errs {
			abs[i] = math.Abs(e)
		}
		slices.Sort(abs)
		med := abs[len(abs)/2]
		if len(abs)%2 == 0 {
			med = (abs[len(abs)/2-1] + abs[len(abs)/2]) / 2
		}
		vv.MedianErr = report.FormatNumber(lang, med, 1) + "%"
	}
	return vv
}

// versusOf is one cell of the comparison: measured total tok/s over the predicted one,
// and the prediction's error relative to the measurement.
func versusOf(m, p *rundoc.DecodeCell, lang string) (cellView, *float64) {
	has := func(c *rundoc.DecodeCell) bool {
		return c != nil && c.DecodeFigures != nil && (c.Status == rundoc.StatusValid || c.Status == rundoc.StatusPredicted)
	}
	cv := cellView{Class: "missing", Main: "—"}
	switch {
	case has(m) && m.Status == rundoc.StatusValid:
		cv.Class, cv.Main = "valid shade-0", report.FormatNumber(lang, m.TotalTokS, 1)
	case m != nil && m.Status == rundoc.StatusOverCapacity:
		cv.Class, cv.Main, cv.Title = "over", locale.T(lang, "over_capacity"), report.CapacityReason(m.Reason, lang)
	case m != nil:
		cv.Class, cv.Main = "failed", statusText(lang, m.Status)
	}
	switch {
	case has(p):
		cv.Sub = locale.T(lang, "predicted_short", report.FormatNumber(lang, p.TotalTokS, 1))
		if has(m) && m.Status == rundoc.StatusValid && m.TotalTokS > 0 {
			d := (p.TotalTokS - m.TotalTokS) / m.TotalTokS * 100
			cv.Diff, cv.DiffClass = diffText(d), diffClass(d)
			return cv, &d
		}
	case p != nil && p.Status == rundoc.StatusOverCapacity:
		cv.Sub = locale.T(lang, "predicted_over")
		cv.Title = report.CapacityReason(p.Reason, lang)
	}
	return cv, nil
}

func diffText(d float64) string { return fmt.Sprintf("%+.1f%%", d) }

func diffClass(d float64) string {
	switch {
	case d > 0.05:
		return "up"
	case d < -0.05:
		return "down"
	}
	return ""
}
