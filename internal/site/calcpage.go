package site

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

type calcData struct {
	Available    bool
	GPUs, Models []string
	Choices      CalcChoices
	In           CalcInput
	Form         calcFormValues
	Predicted    *runView
	Memory       *CalcMemory
	Why          []string // why cells are over capacity, in the page's language
	Advice       []fitAdvice
	Notes        []string // the calculator's own notes (English)
	// Energy is the predicted matrix's estimated J/token (W and $/Mtok below), with
	// how it was estimated (in the page's language where the site knows the
	// calculator's sentence); nil when the estimate has nothing to show.
	Energy       *matrixView
	EnergyNotes  []string
	Measured     []store.RunRecord
	Error        string
	ErrorField   string
	Asked        bool
	APIURL       string
	DefaultKnobs calcFormValues
	// Users is the capacity answer (calcusers.go), UsersForm its fields as typed.
	Users     *calcUsers
	UsersForm calcUsersForm
}

// calcFormValues are the form's fields as typed (or the defaults shown as placeholders).
type calcFormValues struct {
	GPUs, MaxModelLen, Util, MaxNumSeqs, MaxOutput string
	PrefixOff                                      bool
}

func (s *Server) calculator(w http.ResponseWriter, r *http.Request) {
	ctx, lang := r.Context(), requestLang(r)
	v := r.URL.Query()
	d := calcData{Available: s.opt.Calculator != nil,
		DefaultKnobs: calcFormValues{GPUs: "1", MaxModelLen: T(lang, "calc_default_context"), Util: "0.9", MaxNumSeqs: "256 / 1024", MaxOutput: "8192"}}
	in, ferr := calcFromQuery(v)
	d.In = in
	d.Form = calcFormValues{GPUs: v.Get("gpus"), MaxModelLen: v.Get("max_model_len"), Util: first(v, "gpu_memory_utilization", "util"),
		MaxNumSeqs: v.Get("max_num_seqs"), MaxOutput: v.Get("max_output"), PrefixOff: in.NoPrefixCaching}
	if d.Available {
		d.GPUs, d.Models, d.Choices = s.opt.Calculator.GPUs(), s.opt.Calculator.Models(), s.opt.Calculator.Choices()
	} else if f, err := s.cachedFacets(ctx); err == nil {
		for _, x := range f.GPUs {
			d.GPUs = append(d.GPUs, x.Value)
		}
		for _, x := range f.Models {
			d.Models = append(d.Models, x.Value)
		}
	}
	status := http.StatusOK
	if ferr != nil {
		d.Error, d.ErrorField, status = T(lang, "calc_err_field", T(lang, "calc_field_"+ferr.Field), ferr.ReasonIn(lang)), ferr.Field, http.StatusBadRequest
	} else if in.GPU != "" && in.Model != "" {
		d.Asked = true
		d.APIURL = "/api/v1/predict?" + in.query().Encode()
		if d.Available {
			s.fillPrediction(ctx, &d, lang)
			if !s.fillUsers(ctx, &d, v, lang) {
				status = http.StatusBadRequest
			}
		}
		measured, err := s.measuredLike(ctx, in.GPU, in.Model)
		if err != nil {
			s.serverError(w, r, "listing measured runs", err)
			return
		}
		d.Measured = measured
	}
	s.render(w, r, status, "calculator", "calculator", "", d)
}

// fillPrediction predicts the input and explains its over-capacity cells.
func (s *Server) fillPrediction(ctx context.Context, d *calcData, lang string) {
	p, err := s.predict(ctx, d.In)
	if err != nil {
		ce := calcError(err)
		d.Error, d.ErrorField = ce.message(lang), ce.Field
		if ce.NoRoom {
			m := ce.Memory
			d.Memory = &m
			d.Advice = []fitAdvice{s.adviseContext(ctx, d.In, 8192, 0, 0)}
		}
		return
	}
	rec := store.RunRecord{Summary: metric.Summarize(p.Run)}
	rv := newRunView(rec, p.Run, lang)
	d.Predicted, d.Memory, d.Notes = &rv, &p.Memory, p.Run.Notes
	d.Energy, d.EnergyNotes = energyMatrix(p.Run, lang)
	d.Why = overCapacityWhy(lang, p.Run, p.Memory)
	if len(d.Why) > 0 {
		d.Advice = s.adviseFit(ctx, d.In, p.Run, p.Memory)
	}
}

// overCapacityWhy says, in the page's language, why a prediction's cells are over
// capacity: the rule, the numbers, and vLLM's startup check.
func overCapacityWhy(lang string, run *rundoc.Run, m CalcMemory) []string {
	over := 0
	for _, c := range run.Decode {
		if c.Status == rundoc.StatusOverCapacity {
			over++
		}
	}
	if over == 0 {
		return nil
	}
	out := []string{T(lang, "why_rule", over, len(run.Decode), report.FormatInt(lang, int(m.KVTokens)), report.FormatInt(lang, run.Config.MaxOutputTokens))}
	if m.MaxModelLen > 0 && m.KVTokens < m.MaxModelLen {
		out = append(out, T(lang, "why_max_model_len", report.FormatInt(lang, int(m.KVTokens)), report.FormatInt(lang, int(m.MaxModelLen))))
	}
	if m.MaxModelLen > 0 {
		for _, c := range run.Config.Contexts {
			if int64(c+run.Config.MaxOutputTokens) > m.MaxModelLen {
				out = append(out, T(lang, "why_longer", rundoc.FormatTokens(c), report.FormatInt(lang, c+run.Config.MaxOutputTokens), report.FormatInt(lang, int(m.MaxModelLen))))
				break
			}
		}
	}
	return out
}

// apiPredict answers the predicted run document for the calculator's knobs.
func (s *Server) apiPredict(w http.ResponseWriter, r *http.Request) {
	if s.opt.Calculator == nil {
		writeAPIError(w, http.StatusServiceUnavailable, "", "the calculator is not available on this site")
		return
	}
	in, ferr := calcFromQuery(r.URL.Query())
	if ferr == nil && in.GPU == "" {
		ferr = &FieldError{Field: "gpu", Reason: "is required (a GPU and a model)"}
	}
	if ferr != nil {
		writeAPIError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	p, err := s.predict(r.Context(), in)
	if err != nil {
		ce := calcError(err)
		writeAPIError(w, http.StatusBadRequest, ce.Field, ce.message(LangEN))
		return
	}
	writeJSON(w, http.StatusOK, s.withUsers(r.Context(), in, p.Run))
}

// ---- measured against predicted, on a run's page ----

// versusView is a run's cells beside what the calculator predicts for its setup.
type versusView struct {
	Input      CalcInput
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

var launchUtil = regexp.MustCompile(`--gpu-memory-utilization[= ]+([0-9]*\.?[0-9]+)`)

// calcInputOf is the calculator input that describes a run's setup, from its document,
// and what had to be assumed.
func calcInputOf(run *rundoc.Run, rec store.RunRecord, lang string) (CalcInput, []string) {
	in := CalcInput{GPU: rec.GPU, GPUs: max(rec.GPUCount, 1), Model: rec.Model, Quant: run.Engine.Quantization,
		KVDtype: run.Engine.KVCacheDtype, Engine: run.Engine.Name,
		Contexts: run.Config.Contexts, Concurrency: run.Config.Concurrency, PrefillContexts: run.Config.PrefillContexts,
		MaxOutputTokens: run.Config.MaxOutputTokens, DurationS: run.Config.DurationS}
	var assumed []string
	if in.Quant == "" {
		in.Quant = "bf16"
		assumed = append(assumed, T(lang, "assumed_quant"))
	}
	if in.KVDtype == "" || strings.EqualFold(in.KVDtype, "auto") {
		in.KVDtype = "fp16"
		assumed = append(assumed, T(lang, "assumed_kv"))
	}
	if run.Engine.MaxModelLen != nil {
		in.MaxModelLen = *run.Engine.MaxModelLen
	}
	if run.Engine.MaxNumSeqs != nil && *run.Engine.MaxNumSeqs > 0 && *run.Engine.MaxNumSeqs <= maxConc {
		in.MaxNumSeqs = int(*run.Engine.MaxNumSeqs)
	}
	if run.Engine.PrefixCaching != nil && !*run.Engine.PrefixCaching {
		in.NoPrefixCaching = true
	}
	if m := launchUtil.FindStringSubmatch(run.LaunchCommand); m != nil {
		if u, err := strconv.ParseFloat(m[1], 64); err == nil && u > 0 && u <= 1 {
			in.MemoryUtilization = u
		}
	}
	if in.MemoryUtilization == 0 {
		assumed = append(assumed, T(lang, "assumed_util"))
	}
	return in, assumed
}

// versus predicts a measured run's setup and sets each cell beside the measurement.
func (s *Server) versus(ctx context.Context, rec store.RunRecord, run *rundoc.Run, lang string) *versusView {
	if s.opt.Calculator == nil || rec.Kind != rundoc.RunMeasured || (len(run.Decode) == 0 && len(run.Prefill) == 0) {
		return nil // nothing of the matrix measured (an open-loop run): nothing to set beside a prediction
	}
	in, assumed := calcInputOf(run, rec, lang)
	vv := &versusView{Input: in, Assumed: assumed}
	q := in
	q.Contexts, q.Concurrency, q.PrefillContexts, q.DurationS = nil, nil, nil, 0
	// Link to the calculator only with a setup its form takes: a document may describe
	// one past the form's limits (4,096 GPUs), whose link would only answer 400.
	if _, ferr := calcFromQuery(q.query()); ferr != nil {
		vv.CalcRefused = T(lang, "vs_calc_refused", T(lang, "calc_field_"+ferr.Field), ferr.ReasonIn(lang))
	} else {
		vv.CalcURL = "/calculator?" + q.query().Encode()
	}
	p, err := s.predict(ctx, in)
	if err != nil {
		vv.Error = calcError(err).message(lang)
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
		cv.Class, cv.Main, cv.Title = "over", T(lang, "over_capacity"), report.CapacityReason(m.Reason, lang)
	case m != nil:
		cv.Class, cv.Main = "failed", statusText(lang, m.Status)
	}
	switch {
	case has(p):
		cv.Sub = T(lang, "predicted_short", report.FormatNumber(lang, p.TotalTokS, 1))
		if has(m) && m.Status == rundoc.StatusValid && m.TotalTokS > 0 {
			d := (p.TotalTokS - m.TotalTokS) / m.TotalTokS * 100
			cv.Diff, cv.DiffClass = diffText(d), diffClass(d)
			return cv, &d
		}
	case p != nil && p.Status == rundoc.StatusOverCapacity:
		cv.Sub = T(lang, "predicted_over")
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

func num(lang string, v float64, decimals int) string { return report.FormatNumber(lang, v, decimals) }

// energyMatrix is the predicted matrix's energy estimate: J/token in each cell, its
// power and $/Mtok beneath; nil when no cell has an estimated power (a GPU the power
// catalog does not list), so the page shows only the notes saying why.
func energyMatrix(run *rundoc.Run, lang string) (*matrixView, []string) {
	if run.Energy == nil {
		return nil, nil
	}
	// How the energy was estimated, in the page's language, and the price.
	notes := slices.Clone(docTexts(lang, run.Energy.Notes))
	if p := run.Energy.Price; p != nil {
		notes = append(notes, T(lang, "calc_energy_cost", report.FormatNumber(lang, p.USDPerHour, 2), p.Source, p.Date))
	}
	shown := false
	m := matrixOf(run, axisContexts(run), axisConcurrency(run), func(c *rundoc.DecodeCell) cellView {
		if c == nil || c.CellEnergy == nil || c.CellEnergy.PowerWMean == nil {
			v := cellOf(c, 0, 0, lang)
			v.Sub = ""
			return v
		}
		shown = true
		w, j, usd := report.CellEnergyText(lang, c)
		sub := w + " W"
		if c.CellEnergy.USDPerMTok != nil {
			sub += " · $" + usd + "/Mtok"
		}
		return cellView{Class: "valid", Main: j, Sub: sub}
	})
	if !shown {
		return nil, notes
	}
	return &m, notes
}
