package rundoc

import "fmt"

// maxSlices bounds a series: a day's window in one-second slices, with room.
const maxSlices = 100_000

// series checks a measurement's series (absent is fine): a slice of at least 10 ms,
// at most maxSlices slices, every list one entry a slice, every figure plausible.
func (v *validator) series(field string, s *Series) {
	if s == nil {
		return
	}
	v.number(field+".slice_s", s.SliceS, MaxSeconds)
	n := len(s.TokS)
	switch {
	case s.SliceS < 0.01:
		v.fail(field+".slice_s", "%v s: a slice is 10 ms or more", s.SliceS)
	case n > maxSlices:
		v.fail(field+".tok_s", "%d slices, at most %d", n, maxSlices)
	case len(s.Producing) != n || len(s.TTFTMs) != n:
		v.fail(field, "%d tok_s, %d producing and %d ttft_ms slices: want one each a slice", n, len(s.Producing), len(s.TTFTMs))
	}
	for i := range min(n, maxSlices) {
		v.number(fmt.Sprintf("%s.tok_s[%d]", field, i), s.TokS[i], maxTokS)
	}
	for i := range min(len(s.Producing), maxSlices) {
		v.number(fmt.Sprintf("%s.producing[%d]", field, i), s.Producing[i], MaxConc)
	}
	for i := range min(len(s.TTFTMs), maxSlices) {
		v.optNumber(fmt.Sprintf("%s.ttft_ms[%d]", field, i), s.TTFTMs[i], maxMs)
	}
}

// workloadFigures checks what a cell says inside its window and of its work's kind:
// its series, its rate drift, its reasoning tokens (a decode cell's TTFO is checked
// here; a rate cell's as latency stats).
func (v *validator) workloadFigures(field string, s *Series, drift *Drift, reasoning, answer *int) {
	v.series(field+".series", s)
	if d := drift; d != nil {
		v.number(field+".rate_drift.at_s", d.AtS, MaxSeconds)
		v.number(field+".rate_drift.before_tok_s", d.BeforeTokS, maxTokS)
		v.number(field+".rate_drift.after_tok_s", d.AfterTokS, maxTokS)
		v.optNumber(field+".rate_drift.t", d.T, maxCount)
	}
	v.optCount(field+".reasoning_tokens", reasoning)
	v.optCount(field+".answer_tokens", answer)
}
