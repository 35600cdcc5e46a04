package calc

import (
	"context"
	"testing"
)

// ctxCalc is a calculator that honours its context, as one that works for a while
// would: a cancelled request gets the context's error.
type ctxCalc struct{}

func (ctxCalc) GPUs() []string   { return nil }
func (ctxCalc) Models() []string { return nil }
func (ctxCalc) Choices() Choices { return Choices{} }
func (ctxCalc) Predict(ctx context.Context, in Input) (*Prediction, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Prediction{}, nil
}
func (ctxCalc) Capacity(ctx context.Context, in Input) (Memory, error) {
	return Memory{KVTokens: 1}, ctx.Err()
}

// TestPredictionCacheKeepsNoCancelledAnswer: the cache keeps what the calculator says
// of an input, not that one reader went away before it answered.
func TestPredictionCacheKeepsNoCancelledAnswer(t *testing.T) {
	s := NewService(ctxCalc{})
	in := Input{GPU: "g", Model: "m"}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Predict(gone, in); err == nil {
		t.Fatal("a cancelled request was predicted")
	}
	if _, err := s.Capacity(gone, in); err == nil {
		t.Fatal("a cancelled request got a capacity")
	}
	if _, err := s.Predict(context.Background(), in); err != nil {
		t.Errorf("the next reader of the same input got the cancelled one's error: %v", err)
	}
	if _, err := s.Capacity(context.Background(), in); err != nil {
		t.Errorf("the next reader of the same input got the cancelled one's error: %v", err)
	}
}
