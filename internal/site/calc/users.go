package calc

import (
	"context"
	"slices"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// capacityPredictor is what a Calculator may also do: predict the setup at every number
// of requests up to the KV limit, the prediction capacity is read from (calc's
// perf.Setup.PredictCapacity).
type capacityPredictor interface {
	PredictCapacity(ctx context.Context, in Input) (*rundoc.Run, error)
}

// UsersInput is the capacity prediction's input: in, with the asked context among its
// contexts (the seed's when in has none).
func UsersInput(in Input, asked int) Input {
	if len(in.Contexts) == 0 {
		in.Contexts = rundoc.SeedConfig().Contexts
	}
	if !slices.Contains(in.Contexts, asked) {
		in.Contexts = append(slices.Clone(in.Contexts), asked)
		slices.Sort(in.Contexts)
	}
	return in
}

// PredictUsers is the capacity prediction of in, through the cache; nil when the
// calculator predicts no capacity.
func (s *Service) PredictUsers(ctx context.Context, in Input) (*rundoc.Run, error) {
	cp, ok := s.calc.(capacityPredictor)
	if !ok {
		return nil, nil
	}
	v, _ := s.predictions.Get("u"+in.key(), func() (cachedPrediction, bool) {
		run, err := cp.PredictCapacity(ctx, in)
		return keepPrediction(cachedPrediction{p: &Prediction{Run: run}, err: err})
	})
	if v.err != nil || v.p == nil {
		return nil, v.err
	}
	return v.p.Run, nil
}

// GPUText is "RTX 3090", or "2× RTX 3090".
func GPUText(in Input) string {
	if in.GPUs > 1 {
		return report.FormatInt(locale.EN, in.GPUs) + "× " + in.GPU
	}
	return in.GPU
}

// WithUsers is the API's predicted run: the document, and its capacity at the default
// targets where the calculator predicts one.
func (s *Service) WithUsers(ctx context.Context, in Input, run *rundoc.Run) wire.Predicted {
	out := wire.Predicted{Run: run}
	if dense, err := s.PredictUsers(ctx, in); err == nil && dense != nil {
		if out.Users = capacity.Summarize(dense, capacity.DefaultTargets()); out.Users != nil {
			out.Users.Sentences = report.CapacitySentences(dense, report.Options{})
		}
	}
	return out
}
