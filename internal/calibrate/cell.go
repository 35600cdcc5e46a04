package calibrate

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Cell is one decode cell of llmbench run's runner (bench.Runner, the same client,
// transport and token accounting) against a zero-compute server, with a vLLM-like
// server description (continuous usage, ignore_eos) and a progress sink that counts
// tokens as the live display does. It is planned far longer than any window: the
// caller's context ends it. The ceiling measures it, and so does the client-alone
// benchmark (internal/clientbench), so the two measure the same code.
type Cell struct {
	runner *bench.Runner
	doc    *rundoc.Run
	prog   *countingProgress
}

// NewCell plans a cell of streams concurrent requests of maxTokens output tokens to
// the server at base; startTimeout bounds the wait for every stream's first token.
func NewCell(base string, streams, maxTokens int, nonce string, startTimeout time.Duration) *Cell {
	srv := &measure.Server{
		Client: openai.NewClient(base+"/v1", "", streams), Model: "zerostream", API: prompt.Chat,
		IgnoreEOS: true, IgnoreEOSKnown: true, ContinuousUsage: true,
		Counter: fixedCounter{}, Exact: true,
	}
	doc := &rundoc.Run{Config: rundoc.Config{
		Contexts: []int{0}, Concurrency: []int{streams}, DurationS: 24 * 3600,
		MaxOutputTokens: maxTokens, DecodeTest: "fixed-duration", PrefillMode: "decode-warmup", API: "chat",
	}}
	bench.Plan(doc, rundoc.Limits{})
	prog := &countingProgress{}
	return &Cell{
		runner: &bench.Runner{Server: srv, Opts: measure.Options{Progress: prog, Nonce: nonce, StartTimeout: startTimeout}},
		doc:    doc,
		prog:   prog,
	}
}

// Run runs the cell until ctx ends; an ending context is not an error.
func (c *Cell) Run(ctx context.Context) error {
	err := c.runner.Run(ctx, c.doc)
	if errors.Is(err, measure.ErrInterrupted) {
		return nil
	}
	return err
}

// Tokens is how many tokens the cell has read so far.
func (c *Cell) Tokens() int64 { return c.prog.tokens.Load() }

// countingProgress counts tokens as cmd/llmbench's live display does: one shared
// atomic add per chunk, which is part of the path being measured.
type countingProgress struct{ tokens atomic.Int64 }

func (p *countingProgress) Step(string, int, int, time.Duration) {}
func (p *countingProgress) Tokens(n int)                         { p.tokens.Add(int64(n)) }
func (p *countingProgress) Log(string)                           {}

// fixedCounter says what the zero-compute server's usage says: 16 prompt tokens.
type fixedCounter struct{}

func (fixedCounter) Name() string                                       { return "zerostream" }
func (fixedCounter) Count(context.Context, prompt.Payload) (int, error) { return 16, nil }
