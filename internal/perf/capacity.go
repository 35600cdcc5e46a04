package perf

import (
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// MaxCapacityColumns bounds the columns of a capacity prediction (CapacityPlan), so
// that a small model on a large GPU (hundreds of thousands of KV tokens at a short
// output) still predicts in milliseconds.
const MaxCapacityColumns = 4096

// CapacityPlan is p with a decode column at every number of requests from 1 up to the
// first that does not fit the KV cache at any of p's contexts (so the capacity walk of
// internal/capacity meets the KV limit as a measured run does), and no prefill rows:
// the calculator predicts capacity at every N, not only at the matrix's columns. On
// vLLM the columns stop at max_num_seqs: beyond it requests queue, which the step
// model does not predict.
func (s Setup) CapacityPlan(p Plan, kvTokens int64) Plan {
	last := 1
	for _, ctx := range p.Contexts {
		if per := int64(ctx) + int64(p.MaxOutputTokens); per > 0 {
			last = max(last, int(min(kvTokens/per+1, MaxCapacityColumns)))
		}
	}
	if s.Engine.ID == "vllm" {
		last = min(last, s.MaxSeqsFor())
	}
	p.Concurrency = make([]int, last)
	for i := range p.Concurrency {
		p.Concurrency[i] = i + 1
	}
	p.PrefillContexts = nil
	return p
}

// PredictCapacity is the prediction capacity is read from, for calc and the site's
// calculator alike: the setup at p's contexts with a column at every number of
// requests up to the KV limit (CapacityPlan), its energy estimated and priced at the
// catalog's reference price as PredictQuery's is (so a capacity per $/h is known).
func (s Setup) PredictCapacity(p Plan, now time.Time) (*rundoc.Run, error) {
	if s.MaxModelLen <= 0 {
		s.MaxModelLen = p.MaxModelLen
	}
	mem, err := s.Memory()
	if err != nil {
		return nil, err
	}
	dense := s.CapacityPlan(p, mem.KVTokens)
	run, err := s.PredictRun(dense, now)
	if err != nil {
		return nil, err
	}
	if err := s.EstimateEnergy(run, dense, s.CatalogPrice()); err != nil {
		return nil, err
	}
	return run, nil
}

// PredictCapacity is "llmbench calc"'s capacity prediction: the query resolved, the
// plan parsed, Setup.PredictCapacity.
func (c *Catalog) PredictCapacity(q Query, t PlanText, now time.Time) (*rundoc.Run, error) {
	r, p, err := c.resolvePlan(q, t)
	if err != nil {
		return nil, err
	}
	return r.Setup.PredictCapacity(p, now)
}
