package metric

import (
	"net/url"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// BestParams are the API's list parameters (GET /api/v1/runs) whose first run is the
// best run to lay r over (llmbench report --against, the run and upload pages): the
// measured matrix runs of r's GPU and model — and quantization, where r names one —
// ranked by peak total tok/s. Two are asked for, so that r itself, when it is on the
// site and the best, can be passed over for the next.
func BestParams(r *rundoc.Run) url.Values {
	s := Summarize(r)
	v := url.Values{"gpu": {s.GPU}, "model": {s.Model}, "kind": {rundoc.RunMeasured}, "mode": {ModeMatrix},
		"sort": {string(MetricPeak)}, "limit": {"2"}}
	if s.Quantization != "" {
		v.Set("quant", s.Quantization)
	}
	return v
}
