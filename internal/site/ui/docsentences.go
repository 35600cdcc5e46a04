package ui

import (
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Some of a run document's text is written by llmbench itself, in English, one of a
// few sentences with its numbers: a rate cell's saturation evidence
// (bench.saturationEvidence), why a prediction has no telemetry and how its energy was
// estimated (perf.EstimateEnergy). Pages in another language say the sentences they
// know in theirs, numbers kept — in the site's own views, and in the copy of the run
// the report body is rendered from (locale.DocText); one they do not know (a later
// release's, or a submitter's own) stays as written.

// docIn is run with the sentences llmbench wrote into it in lang, for the report
// body: a copy where any differs, run itself otherwise (and always in English).
func docIn(run *rundoc.Run, lang string) *rundoc.Run {
	if lang == locale.EN {
		return run
	}
	out := *run
	out.Rate = make([]rundoc.RateCell, len(run.Rate))
	for i, c := range run.Rate {
		if c.RateFigures != nil && len(c.Saturation) > 0 {
			f := *c.RateFigures
			f.Saturation = locale.DocTexts(lang, f.Saturation)
			c.RateFigures = &f
		}
		out.Rate[i] = c
	}
	if run.Rate == nil {
		out.Rate = nil
	}
	if e := run.Energy; e != nil {
		en := *e
		en.Reason, en.Notes = locale.DocText(lang, e.Reason), locale.DocTexts(lang, e.Notes)
		out.Energy = &en
	}
	out.Decode = make([]rundoc.DecodeCell, len(run.Decode))
	for i, c := range run.Decode {
		if c.CellEnergy != nil && c.CellEnergy.Reason != "" {
			ce := *c.CellEnergy
			ce.Reason = locale.DocText(lang, ce.Reason)
			c.CellEnergy = &ce
		}
		out.Decode[i] = c
	}
	if run.Decode == nil {
		out.Decode = nil
	}
	return &out
}
