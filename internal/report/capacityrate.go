package report

import (
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
)

// This file holds an open-loop run's capacity sentence: its highest rate meeting the SLO.

// rateSentence states an open-loop run's capacity in the matrix's words: "At 512 input
// tokens (128 output): 3.50 requests/s with TTFT ≤ 500 ms for 95% of requests (limit:
// 4.00 requests/s did not meet it)."
func rateSentence(lang string, a *capacity.RateAnswer) string {
	in, out := FormatInt(lang, a.InputLen), FormatInt(lang, a.OutputLen)
	slo, share := sloText(lang, a), FormatPercent(lang, a.SLO.Target)
	if a.RPS == nil {
		return locale.T(lang, "cap_rate_none", in, out, slo, share)
	}
	limit := locale.T(lang, "cap_rate_beyond")
	if a.FailedRPS != nil {
		limit = locale.T(lang, "cap_rate_failed", FormatNumber(lang, *a.FailedRPS, 2))
	}
	if a.Searched {
		limit = locale.T(lang, "cap_rate_searched", limit)
	}
	return locale.T(lang, "cap_rate", in, out, FormatNumber(lang, *a.RPS, 2), slo, share, limit)
}

// sloText is "TTFT ≤ 500 ms, TPOT ≤ 50 ms".
func sloText(lang string, a *capacity.RateAnswer) string {
	var parts []string
	for _, p := range []struct {
		key string
		v   *float64
	}{{"cap_slo_ttft", a.SLO.TTFTMs}, {"cap_slo_tpot", a.SLO.TPOTMs}, {"cap_slo_e2e", a.SLO.E2EMs}} {
		if p.v != nil {
			parts = append(parts, locale.T(lang, p.key, durationText(lang, *p.v)))
		}
	}
	return strings.Join(parts, locale.T(lang, "cap_and"))
}
