package ui

import (
	"context"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/guard"
)

// This file holds the calculator page's capacity answer: "how many users can an RTX 3090
// serve at 20 tok/s on this model at 16K?" in one step (the form's speed= and
// users_context=), predicted at every number of requests up to the KV limit.

// calcUsers is the calculator's capacity answer.
type calcUsers struct {
	Question string
	Answer   string   // the asked context's sentence
	Others   []string // every other context's
}

// calcUsersForm are the form's capacity fields as typed.
type calcUsersForm struct{ Speed, Context string }

// fillUsers answers the form's capacity question, at the default context 16K and 20
// tok/s when the reader left them out; a field it cannot read is the page's error
// (false).
func (s *Pages) fillUsers(ctx context.Context, d *calcData, v url.Values, lang string) bool {
	d.UsersForm = calcUsersForm{Speed: strings.TrimSpace(v.Get("speed")), Context: strings.TrimSpace(v.Get("users_context"))}
	speed, ferr := board.ParseSpeed(d.UsersForm.Speed)
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
	in := calc.UsersInput(d.In, asked)
	run, err := s.calc.PredictUsers(ctx, in)
	if err != nil || run == nil {
		return true // the prediction above says why, or the calculator predicts no capacity
	}
	t := capacity.DefaultTargets().WithSpeed(speed)
	u := &calcUsers{Question: locale.T(lang, "calc_users_q", calc.GPUText(in), report.FormatNumber(lang, speed, decimalsOf(speed)), in.Model, rundoc.FormatTokens(asked))}
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
