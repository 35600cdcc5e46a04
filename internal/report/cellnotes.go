package report

import (
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// flagNote is a flag as a cell's note: the flags with their own sentence say it (a
// window's rate drift with where and how far), any other is named.
func flagNote(lang, flag string, drift *rundoc.Drift) string {
	switch {
	case flag == rundoc.FlagRateDrift && drift != nil:
		return locale.T(lang, "n_rate_drift", FormatNumber(lang, drift.AtS, 1), FormatNumber(lang, drift.BeforeTokS, 1), FormatNumber(lang, drift.AfterTokS, 1))
	case flag == rundoc.FlagSpecRandomWords:
		return locale.T(lang, "n_spec_random")
	}
	return locale.T(lang, "n_flag", flag)
}

// rateDriftNote is a rate cell's rate_drift: the rate a streaming request got
// (rundoc.RateFigures.RateDrift), not the cell's total, moved.
func rateDriftNote(lang string, d *rundoc.Drift) string {
	return locale.T(lang, "n_rate_drift_stream", FormatNumber(lang, d.AtS, 1), FormatNumber(lang, d.BeforeTokS, 1), FormatNumber(lang, d.AfterTokS, 1))
}

// workloadInfo is what a cell says of the work's kind: a reasoning model's time to
// its first answer token and its tokens by kind, and speculative decoding's
// acceptance over the window. ttfo is the cell's (a decode cell's median, a rate
// cell's p50).
func workloadInfo(lang string, ttfoKey string, ttfo *float64, reasoning, answer *int, server *rundoc.ServerMetrics) []string {
	var info []string
	if ttfo != nil {
		line := locale.T(lang, ttfoKey, FormatMs(lang, *ttfo, 0))
		if reasoning != nil && answer != nil {
			line += " (" + locale.T(lang, "n_reasoning_split", FormatInt(lang, *reasoning), FormatInt(lang, *answer)) + ")"
		}
		info = append(info, line)
	}
	if server == nil || server.SpecDecode == nil {
		return info
	}
	sd := server.SpecDecode
	var parts []string
	if r := sd.AcceptanceRate; r != nil {
		parts = append(parts, locale.T(lang, "n_spec_rate", FormatPercent(lang, *r)))
	} else if g := sd.GaugeAcceptRate; g != nil {
		parts = append(parts, locale.T(lang, "n_spec_rate", FormatPercent(lang, *g)))
	}
	if l := sd.MeanAcceptedLength; l != nil {
		parts = append(parts, locale.T(lang, "n_spec_length", FormatNumber(lang, *l, 2)))
	}
	if len(parts) > 0 {
		info = append(info, locale.T(lang, "n_spec", strings.Join(parts, ", ")))
	}
	return info
}

// decodeWorkloadInfo is workloadInfo of a matrix cell.
func decodeWorkloadInfo(lang string, d *rundoc.CellDetail) []string {
	return workloadInfo(lang, "n_ttfo", d.TTFOMs, d.ReasoningTokens, d.AnswerTokens, d.Server)
}

// rateWorkloadInfo is workloadInfo of a rate cell.
func rateWorkloadInfo(lang string, f *rundoc.RateFigures) []string {
	var p50 *float64
	if f.TTFOMs != nil {
		p50 = f.TTFOMs.P50
	}
	return workloadInfo(lang, "n_ttfo_p50", p50, f.ReasoningTokens, f.AnswerTokens, f.Server)
}

// publishedNote says which of a --repeat measurement's repeats it publishes and why
// ("" without).
func publishedNote(lang string, published int, why string, repeats int) string {
	key := map[string]string{rundoc.PublishedMedian: "pub_median", rundoc.PublishedSlowerMid: "pub_slower", rundoc.PublishedOnlyValid: "pub_only"}[why]
	if published == 0 || key == "" || repeats < 2 {
		return ""
	}
	return locale.T(lang, "n_published", published, locale.T(lang, key))
}
