package clientbench

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
)

// llmbenchClient runs what llmbench run runs for one decode cell: bench.Runner with a
// vLLM-like server description (continuous usage, ignore_eos), the same client and
// transport, and a progress sink that counts tokens as the live display does (one
// shared atomic add per chunk). The cell is planned far longer than the window; the
// window's end cancels it.
type llmbenchClient struct {
	runner *bench.Runner
	doc    *bench.Run
	prog   *countingProgress
}

func newLLMBenchClient(base string, streams, maxTokens int) *llmbenchClient {
	srv := &bench.Server{
		Client: openai.NewClient(base+"/v1", "", streams), Model: "zerostream", API: prompt.Chat,
		IgnoreEOS: true, IgnoreEOSKnown: true, ContinuousUsage: true,
		Counter: fixedCounter{}, Exact: true,
	}
	doc := &bench.Run{Config: bench.Config{
		Contexts: []int{0}, Concurrency: []int{streams}, DurationS: 24 * 3600,
		MaxOutputTokens: maxTokens, DecodeTest: "fixed-duration", PrefillMode: "decode-warmup", API: "chat",
	}}
	bench.Plan(doc, nil, nil)
	prog := &countingProgress{}
	return &llmbenchClient{
		runner: &bench.Runner{Server: srv, Opts: bench.Options{Progress: prog, Nonce: "clientbench", StartTimeout: 3 * time.Minute}},
		doc:    doc,
		prog:   prog,
	}
}

func (l *llmbenchClient) run(ctx context.Context) error {
	err := l.runner.Run(ctx, l.doc)
	if errors.Is(err, bench.ErrInterrupted) {
		return nil
	}
	return err
}

func (l *llmbenchClient) tokens() int64 { return l.prog.tokens.Load() }

// errors is what the runner says went wrong; it counts no per-request errors.
func (l *llmbenchClient) errors() int64 { return 0 }

// countingProgress is cmd/llmbench's progress without the display: Tokens is the same
// atomic add.
type countingProgress struct{ tokens atomic.Int64 }

func (p *countingProgress) Step(string, int, int, time.Duration) {}
func (p *countingProgress) Tokens(n int)                         { p.tokens.Add(int64(n)) }
func (p *countingProgress) Log(string)                           {}

// fixedCounter says what the zero-compute server's usage says: 16 prompt tokens.
type fixedCounter struct{}

func (fixedCounter) Name() string                                       { return "zerostream" }
func (fixedCounter) Count(context.Context, prompt.Payload) (int, error) { return 16, nil }
