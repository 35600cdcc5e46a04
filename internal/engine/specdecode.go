package engine

import (
	"sort"
	"strconv"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Speculative decoding's counters, as the engines name them.
//
// vLLM V1 (vllm/v1/spec_decode/metrics.py, SpecDecodingProm; labels model_name and
// engine from v1/metrics/loggers.py, plus position on the per-position counter): every
// engine step adds its drafts, drafted tokens, accepted tokens and accepted tokens per
// draft position. Acceptance rate is accepted/drafted tokens; mean acceptance length,
// by vLLM's convention, 1 + accepted/drafts (the bonus token included).
//
// SGLang (python/sglang/srt/metrics/collector.py): spec_verify_calls_total and
// generation_tokens_total are counters added when a request finishes (its
// spec_verify_ct and its tokens), so their ratio over a window is the tokens per
// verify step — SGLang's accept length, bonus token included — of the requests that
// finished in it; spec_accept_rate and spec_accept_length are gauges of the last
// logging interval only.
var (
	specDraftsNames      = []string{"vllm:spec_decode_num_drafts"}
	specDraftTokenNames  = []string{"vllm:spec_decode_num_draft_tokens"}
	specAcceptedNames    = []string{"vllm:spec_decode_num_accepted_tokens"}
	specPerPosNames      = []string{"vllm:spec_decode_num_accepted_tokens_per_pos"}
	specVerifyNames      = []string{"sglang:spec_verify_calls"}
	specGeneratedNames   = []string{"sglang:generation_tokens"}
	specAcceptRateNames  = []string{"sglang:spec_accept_rate"}
	specAcceptLengthName = []string{"sglang:spec_accept_length"}
)

// SpecCounters is one reading of a server's speculative-decoding metrics. A nil
// field was not on the page.
type SpecCounters struct {
	// vLLM's counters, summed over engines (data-parallel ranks).
	Drafts, DraftTokens, Accepted *float64
	// AcceptedPerPos is vLLM's accepted tokens by draft position (0 first).
	AcceptedPerPos []float64
	// SGLang's counters: verify steps and generated tokens of finished requests.
	VerifyCalls, Generated *float64
	// SGLang's gauges of its last logging interval.
	AcceptRate, AcceptLength *float64
}

// ParseSpecCounters reads the speculative-decoding metrics of one Prometheus page.
func ParseSpecCounters(page []byte) (SpecCounters, error) {
	fams, err := parseMetrics(page)
	if err != nil {
		return SpecCounters{}, err
	}
	return specCounters(fams), nil
}

func specCounters(fams families) SpecCounters {
	get := func(names []string) *float64 {
		fam, _ := fams.find(names...)
		if v, ok := total(fam, nil); ok {
			return &v
		}
		return nil
	}
	s := SpecCounters{
		Drafts: get(specDraftsNames), DraftTokens: get(specDraftTokenNames), Accepted: get(specAcceptedNames),
		VerifyCalls: get(specVerifyNames), Generated: get(specGeneratedNames),
	}
	if fam, _ := fams.find(specAcceptRateNames...); fam != nil {
		if v, ok := mean(fam); ok {
			s.AcceptRate = &v
		}
	}
	if fam, _ := fams.find(specAcceptLengthName...); fam != nil {
		if v, ok := mean(fam); ok {
			s.AcceptLength = &v
		}
	}
	if s.VerifyCalls == nil {
		s.Generated = nil // without verify steps, generated tokens say nothing of drafting
	}
	fam, _ := fams.find(specPerPosNames...)
	s.AcceptedPerPos = perPosition(fam)
	return s
}

// perPosition sums a per-position counter over engines, by position; nil when absent.
func perPosition(fam *dto.MetricFamily) []float64 {
	if fam == nil {
		return nil
	}
	seen := map[int]bool{}
	for _, m := range fam.GetMetric() {
		if p, ok := labelValue(m, "position"); ok {
			if i, err := strconv.Atoi(p); err == nil && i >= 0 && i < 64 {
				seen[i] = true
			}
		}
	}
	var positions []int
	for p := range seen {
		positions = append(positions, p)
	}
	sort.Ints(positions)
	if len(positions) == 0 || positions[len(positions)-1] != len(positions)-1 {
		return nil // positions are 0..k-1; anything else is not vLLM's counter
	}
	out := make([]float64, len(positions))
	for _, p := range positions {
		want := strconv.Itoa(p)
		v, _ := total(fam, func(m *dto.Metric) bool { l, _ := labelValue(m, "position"); return l == want })
		out[p] = v
	}
	return out
}

// SpecDecode is speculative decoding over a window, from the server's counters: the
// run document's (rundoc.SpecDecode), in a cell's server metrics.
type SpecDecode = rundoc.SpecDecode

// Sources of SpecDecode.
const (
	SpecSourceVLLM   = "vllm:spec_decode counters"
	SpecSourceSGLang = "sglang:spec_verify_calls and generation_tokens counters"
)

// SpecDecodeBetween is speculative decoding between two readings of the same server:
// false when neither engine's counters are on both pages, or no draft round happened,
// or a counter went down (the server restarted).
func SpecDecodeBetween(before, after SpecCounters) (*SpecDecode, bool) {
	if d, ok := vllmSpec(before, after); ok {
		return d, true
	}
	return sglangSpec(before, after)
}

func vllmSpec(before, after SpecCounters) (*SpecDecode, bool) {
	drafts, ok1 := delta(before.Drafts, after.Drafts)
	drafted, ok2 := delta(before.DraftTokens, after.DraftTokens)
	accepted, ok3 := delta(before.Accepted, after.Accepted)
	if !ok1 || !ok2 || !ok3 || drafts <= 0 {
		return nil, false
	}
	d := &SpecDecode{Source: SpecSourceVLLM, Drafts: drafts, DraftTokens: drafted, AcceptedTokens: accepted}
	if drafted > 0 {
		rate := accepted / drafted
		d.AcceptanceRate = &rate
	}
	length := 1 + accepted/drafts
	d.MeanAcceptedLength = &length
	if n := len(after.AcceptedPerPos); n > 0 && n == len(before.AcceptedPerPos) {
		d.PerPosition = make([]float64, n)
		for i := range n {
			a, b := before.AcceptedPerPos[i], after.AcceptedPerPos[i]
			if b < a {
				d.PerPosition = nil
				break
			}
			d.PerPosition[i] = (b - a) / drafts
		}
	}
	return d, true
}

func sglangSpec(before, after SpecCounters) (*SpecDecode, bool) {
	verify, ok1 := delta(before.VerifyCalls, after.VerifyCalls)
	generated, ok2 := delta(before.Generated, after.Generated)
	if !ok1 || !ok2 || verify <= 0 {
		return nil, false
	}
	length := generated / verify
	return &SpecDecode{Source: SpecSourceSGLang, Drafts: verify, MeanAcceptedLength: &length, GaugeAcceptRate: after.AcceptRate}, true
}

// rounded is d as a document records it: rates and lengths to four decimals (an
// acceptance rate of 0.5400, a length of 2.6200).
func rounded(d *SpecDecode) *SpecDecode {
	out := *d
	r := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		x := stats.Round(*v, 4)
		return &x
	}
	out.AcceptanceRate, out.MeanAcceptedLength, out.GaugeAcceptRate = r(d.AcceptanceRate), r(d.MeanAcceptedLength), r(d.GaugeAcceptRate)
	if d.PerPosition != nil {
		out.PerPosition = make([]float64, len(d.PerPosition))
		for i, v := range d.PerPosition {
			out.PerPosition[i] = stats.Round(v, 4)
		}
	}
	return &out
}
