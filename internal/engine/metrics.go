package engine

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// families is a parsed Prometheus text page, by metric family name.
type families map[string]*dto.MetricFamily

// parseMetrics parses the Prometheus text exposition format. Engines' names contain
// colons (vllm:…, sglang:…), which the UTF-8 scheme accepts.
func parseMetrics(b []byte) (families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parsing Prometheus metrics: %w", err)
	}
	return fams, nil
}

// find returns the first family present among names, trying each with and without the
// _total suffix that prometheus_client adds to counters on the wire.
func (f families) find(names ...string) (*dto.MetricFamily, string) {
	for _, n := range names {
		for _, cand := range []string{n, n + "_total", strings.TrimSuffix(n, "_total")} {
			if fam, ok := f[cand]; ok && len(fam.GetMetric()) > 0 {
				return fam, cand
			}
		}
	}
	return nil, ""
}

// shardLabels tell apart the ranks of one model replica (tensor, pipeline and expert
// parallel workers of SGLang), which report the same figure each: such series are
// combined by their maximum. Every other label (vLLM's engine, SGLang's dp_rank,
// cache_source…) tells apart real parts of the total, which are added.
var shardLabels = map[string]bool{"tp_rank": true, "pp_rank": true, "moe_ep_rank": true, "attn_tp_rank": true, "attn_cp_rank": true}

func sampleValue(m *dto.Metric) (float64, bool) {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
}

func labelValue(m *dto.Metric, name string) (string, bool) {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue(), true
		}
	}
	return "", false
}

// partKey names the part of the total a series is, leaving out shard labels.
func partKey(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		if !shardLabels[l.GetName()] {
			parts = append(parts, l.GetName()+"="+l.GetValue())
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// parts combines a family's series: the maximum over shards of each part.
func parts(fam *dto.MetricFamily, match func(*dto.Metric) bool) map[string]float64 {
	per := map[string]float64{}
	if fam == nil {
		return per
	}
	for _, m := range fam.GetMetric() {
		if match != nil && !match(m) {
			continue
		}
		v, ok := sampleValue(m)
		if !ok || math.IsNaN(v) {
			continue
		}
		k := partKey(m)
		if old, seen := per[k]; !seen || v > old {
			per[k] = v
		}
	}
	return per
}

// total adds a gauge or counter over its parts (replicas, sources). match, when not
// nil, selects series by label.
func total(fam *dto.MetricFamily, match func(*dto.Metric) bool) (float64, bool) {
	per := parts(fam, match)
	if len(per) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, v := range per {
		sum += v
	}
	return sum, true
}

// mean averages a ratio gauge (KV usage 0–1) over replicas.
func mean(fam *dto.MetricFamily) (float64, bool) {
	per := parts(fam, nil)
	if len(per) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, v := range per {
		sum += v
	}
	return sum / float64(len(per)), true
}

// infoLabels returns the label sets of an info metric (value 1, facts in labels), one
// per replica, in a stable order.
func infoLabels(fam *dto.MetricFamily) []map[string]string {
	seen := map[string]bool{}
	var out []map[string]string
	for _, m := range fam.GetMetric() {
		k, _ := labelValue(m, "engine")
		if seen[k] {
			continue
		}
		seen[k] = true
		l := map[string]string{}
		for _, lp := range m.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["engine"] < out[j]["engine"] })
	return out
}
