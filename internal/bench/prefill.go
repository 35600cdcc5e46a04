package bench

import (
	"fmt"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// PrefillRun is what measuring a prefill row produced: the cold request that
// succeeded (or the last one tried) and how many were tried.
type PrefillRun struct {
	Context  int             `json:"context"`
	Request  measure.Request `json:"request"`
	Attempts int             `json:"attempts"`
	Error    string          `json:"error,omitempty"`
	Settle   *Settle         `json:"settle,omitempty"`
}

// coldCacheTolerance is how many cached prompt tokens a cold request may report: a chat
// template's fixed preamble can fill a cache block before the nonce.
const coldCacheTolerance = 64

// ScorePrefill computes a prefill row from its cold request. Pure, like ScoreCell.
func ScorePrefill(run *PrefillRun) rundoc.PrefillRow {
	row := rundoc.PrefillRow{Context: run.Context}
	q := &run.Request
	switch {
	case run.Error != "":
		row.Status, row.Reason = rundoc.StatusFailed, run.Error
		return row
	case q.NotStreamed:
		row.Status, row.Reason = rundoc.StatusFailed, openai.ErrNotStreamed.Error()
		return row
	case q.FirstToken == 0:
		row.Status, row.Reason = rundoc.StatusFailed, "no token arrived"
		if q.Error != "" {
			row.Reason += ": " + q.Error
		}
		return row
	}
	ttftMs := float64(q.FirstToken-q.Sent) / 1e6
	promptTokens := run.Context
	fig := &rundoc.PrefillFigures{TTFTMs: stats.Round(ttftMs, 0)}
	if q.Finished() {
		fig.CompletedRequests = 1
	}
	if run.Attempts > 1 {
		fig.Attempts = run.Attempts
	}
	if run.Settle != nil {
		fig.SettleMs = openai.Ptr(stats.Round(run.Settle.WaitMs, 1))
	}
	if q.Usage != nil && q.Usage.PromptTokens > 0 {
		promptTokens = q.Usage.PromptTokens
		fig.PromptTokens = promptTokens
	}
	if cached, _, ok := q.CachedPrompt(); ok {
		fig.CachedTokens = openai.Ptr(cached)
	}
	// The prefill read the tokens it did not find cached (a chat template's preamble
	// may fill a cache block before the nonce): those over the time to first token.
	read := promptTokens
	if fig.CachedTokens != nil && *fig.CachedTokens < promptTokens {
		read -= *fig.CachedTokens
	}
	fig.PromptTokS = stats.Round(float64(read)/(ttftMs/1000), 1)
	row.PrefillFigures = fig
	row.Status = rundoc.StatusValid
	switch {
	case measure.RelDiff(promptTokens, run.Context) > 0.01:
		row.Status, row.Reason = rundoc.StatusInvalid, fmt.Sprintf("prompt has %d tokens, %d asked (more than 1%% off)", promptTokens, run.Context)
	case fig.CachedTokens != nil && *fig.CachedTokens > coldCacheTolerance && *fig.CachedTokens > promptTokens/100:
		row.Status, row.Reason = rundoc.StatusInvalid, fmt.Sprintf("the cold request found %d tokens already cached: prefill was not measured cold", *fig.CachedTokens)
	}
	return row
}
