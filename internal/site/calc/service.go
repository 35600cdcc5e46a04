package calc

import (
	"context"
	"errors"

	"github.com/llmbench/llmbench/internal/memo"
)

// cachedPrediction is a kept prediction (or refusal) by input: the calculator is
// pure, and run pages ask for the same setups again and again. A request that ended
// before the calculator answered leaves nothing behind.
type cachedPrediction struct {
	p   *Prediction
	mem Memory
	err error
}

// keepPrediction says whether an answer is one about the input, to keep: a cancelled
// or timed-out request's is what became of that request.
func keepPrediction(v cachedPrediction) (cachedPrediction, bool) {
	return v, !errors.Is(v.err, context.Canceled) && !errors.Is(v.err, context.DeadlineExceeded)
}

// Service is a Calculator asked through a cache of its answers.
type Service struct {
	calc        Calculator
	predictions *memo.Cache[cachedPrediction]
}

// NewService asks c through a cache; nil when c is (the site has no calculator).
func NewService(c Calculator) *Service {
	if c == nil {
		return nil
	}
	return &Service{calc: c, predictions: memo.New[cachedPrediction](512, 0)}
}

// Calculator is the calculator asked; nil on a site without one (s nil).
func (s *Service) Calculator() Calculator {
	if s == nil {
		return nil
	}
	return s.calc
}

// Predict asks the calculator, through the cache. The run is shared: do not change it.
func (s *Service) Predict(ctx context.Context, in Input) (*Prediction, error) {
	v, _ := s.predictions.Get("p"+in.key(), func() (cachedPrediction, bool) {
		p, err := s.calc.Predict(ctx, in)
		return keepPrediction(cachedPrediction{p: p, err: err})
	})
	return v.p, v.err
}

// Capacity is the calculator's memory split of in, through the cache.
func (s *Service) Capacity(ctx context.Context, in Input) (Memory, error) {
	v, _ := s.predictions.Get("c"+in.key(), func() (cachedPrediction, bool) {
		m, err := s.calc.Capacity(ctx, in)
		return keepPrediction(cachedPrediction{mem: m, err: err})
	})
	return v.mem, v.err
}
