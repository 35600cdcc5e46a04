package site

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
)

// This file holds the calculator's capacity answer: "how many users can an RTX 3090
// serve at 20 tok/s on this model at 16K?" in one step (the form's speed= and
// users_context=), predicted at every number of requests up to the KV limit.

// capacityPredictor is what a Calculator may also do: predict the setup at every number
// of requests up to the KV limit, the prediction capacity is read from (calc's
// perf.Setup.PredictCapacity).
type capacityPredictor interface {
	PredictCapacity(ctx context.Context, in CalcInput) (*rundoc.Run, error)
}

// calcUsers is the calculator's capacity answer.
type calcUsers struct {
	Question string
	Answer   string   // the asked context's sentence
	Others   []string // every other context's
}

// calcUsersForm are the form's capacity fields as typed.
type calcUsersForm struct{ Speed, Context string }

// usersInput is the capacity prediction's input: in, with the asked context among its
// contexts (the seed's when in has none).
func usersInput(in CalcInput, asked int) CalcInput {
	if len(in.Contexts) == 0 {
		in.Contexts = rundoc.SeedConfig().Contexts
	}
	if !slices.Contains(in.Contexts, asked) {
		in.Contexts = append(slices.Clone(in.Contexts), asked)
		slices.Sort(in.Contexts)
	}
	return in
}

// predictUsers is the capacity prediction of in, through the calculator's cache.
func (s *Server) predictUsers(ctx context.Context, in CalcInput) (*rundoc.Run, error) {
	cp, ok := s.opt.Calculator.(capacityPredictor)
	if !ok {
		return nil, nil
	}
	v, _ := s.predictions.Get("u"+in.key(), func() (cachedPrediction, bool) {
		run, err := cp.PredictCapacity(ctx, in)
		return keepPrediction(cachedPrediction{p: &Prediction{Run: run}, err: err})
	})
	if v.err != nil || v.p == nil {
		return nil, v.err
	}
	return v.p.Run, nil
}

// fillUsers answers the form's capacity question, at the default context 16K and 20
// tok/s when the reader left them out; a field it cannot read is the page's error
// (false).
func (s *Server) fillUsers(ctx context.Context, d *calcData, v url.Values, lang string) bool {
	d.UsersForm = calcUsersForm{Speed: strings.TrimSpace(v.Get("speed")), Context: strings.TrimSpace(v.Get("users_context"))}
	speed, ferr := parseSpeed(d.UsersForm.Speed)
	asked := 16 * rundoc.K
	if ferr == nil && d.UsersForm.Context != "" {
		n, err := rundoc.ParseTokens(d.UsersForm.Context)
		if err != nil || n > rundoc.MaxTokens {
			ferr = guard.Refuse("users_context", "calc_reason_tokens", rundoc.MaxTokens)
		}
		asked = n
	}
	if ferr != nil {
		d.Error, d.ErrorField = locale.T(lang, "calc_err_field", locale.T(lang, "calc_field_"+ferr.Field), ferr.ReasonIn(lang)), ferr.Field
		return false
	}
	in := usersInput(d.In, asked)
	run, err := s.predictUsers(ctx, in)
	if err != nil || run == nil {
		return true // the prediction above says why, or the calculator predicts no capacity
	}
	t := capacity.DefaultTargets().WithSpeed(speed)
	u := &calcUsers{Question: locale.T(lang, "calc_users_q", gpuText(in), report.FormatNumber(lang, speed, decimalsOf(speed)), in.Model, rundoc.FormatTokens(asked))}
	rows := capacity.Of(run, t).Rows
	sentences := report.CapacitySentences(run, report.Options{Lang: lang, Capacity: t})
	for i, r := range rows {
		if r.Context == asked {
			u.Answer = sentences[i]
		} else {
			u.Others = append(u.Others, sentences[i])
		}
	}
	d.Users = u
	return true
}

// gpuText is "RTX 3090", or "2× RTX 3090".
func gpuText(in CalcInput) string {
	if in.GPUs > 1 {
		return report.FormatInt(locale.EN, in.GPUs) + "× " + in.GPU
	}
	return in.GPU
}

// predictedJSON is a predicted run with its capacity block, as the json report writes
// one ("users": read from the prediction at every N up to the KV limit).
type predictedJSON struct {
	*rundoc.Run
	Users *capacity.Summary `json:"users,omitempty"`
}

// withUsers is the API's predicted run: the document, and its capacity at the default
// targets where the calculator predicts one.
func (s *Server) withUsers(ctx context.Context, in CalcInput, run *rundoc.Run) predictedJSON {
	out := predictedJSON{Run: run}
	if dense, err := s.predictUsers(ctx, in); err == nil && dense != nil {
		if out.Users = capacity.Summarize(dense, capacity.DefaultTargets()); out.Users != nil {
			out.Users.Sentences = report.CapacitySentences(dense, report.Options{})
		}
	}
	return out
}
