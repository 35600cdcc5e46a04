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

// rankLabels identify one engine replica (vLLM data-parallel engine, SGLang DP rank).
// Series that differ only in other labels (model_name, tp_rank…) describe the same
// replica and are not added up.
var rankLabels = []string{"engine", "dp_rank"}

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

func rankKey(m *dto.Metric) string {
	var parts []string
	for _, n := range rankLabels {
		if v, ok := labelValue(m, n); ok {
			parts = append(parts, n+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// total adds a gauge or counter over replicas: the series of one replica are
// combined by their maximum (tensor-parallel ranks report the same figure), the
// replicas by their sum. match, when not nil, selects series by label.
func total(fam *dto.MetricFamily, match func(*dto.Metric) bool) (float64, bool) {
	if fam == nil {
		return 0, false
	}
	per := map[string]float64{}
	for _, m := range fam.GetMetric() {
		if match != nil && !match(m) {
			continue
		}
		v, ok := sampleValue(m)
		if !ok || math.IsNaN(v) {
			continue
		}
		k := rankKey(m)
		if old, seen := per[k]; !seen || v > old {
			per[k] = v
		}
	}
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
	s, ok := total(fam, nil)
	if !ok {
		return 0, false
	}
	return s / float64(replicas(fam)), true
}

// replicas counts the distinct replicas a family has series for (at least 1).
func replicas(fam *dto.MetricFamily) int {
	keys := map[string]bool{}
	for _, m := range fam.GetMetric() {
		keys[rankKey(m)] = true
	}
	if len(keys) == 0 {
		return 1
	}
	return len(keys)
}

// infoLabels returns the label sets of an info metric (value 1, facts in labels), one
// per replica, in a stable order.
func infoLabels(fam *dto.MetricFamily) []map[string]string {
	seen := map[string]bool{}
	var out []map[string]string
	for _, m := range fam.GetMetric() {
		k := rankKey(m)
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
