package calc

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// PredictCapacity is the prediction the calculator's capacity is read from: the
// input's setup at every number of requests up to the KV limit, as "llmbench calc"
// reads its own (perf.Setup.PredictCapacity).
func (p *Perf) PredictCapacity(ctx context.Context, in Input) (*rundoc.Run, error) {
	s, plan, err := p.validSetup(in)
	if err != nil {
		return nil, err
	}
	run, err := s.PredictCapacity(plan, time.Now())
	if err != nil {
		return nil, &Error{Reason: err.Error()}
	}
	run.Tool = rundoc.Tool{Name: "llmbench", Version: "site"}
	return run, nil
}
