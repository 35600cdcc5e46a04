package clientbench

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/calibrate"
)

// llmbenchClient runs what llmbench run runs for one decode cell: the ceiling's own
// cell (calibrate.Cell), so this benchmark and the ceiling every run records measure
// the same code. The window's end cancels it.
type llmbenchClient struct{ cell *calibrate.Cell }

func newLLMBenchClient(base string, streams, maxTokens int) *llmbenchClient {
	return &llmbenchClient{cell: calibrate.NewCell(base, streams, maxTokens, "clientbench", 3*time.Minute)}
}

func (l *llmbenchClient) run(ctx context.Context) error { return l.cell.Run(ctx) }

func (l *llmbenchClient) tokens() int64 { return l.cell.Tokens() }

// errors is what the runner says went wrong; it counts no per-request errors.
func (l *llmbenchClient) errors() int64 { return 0 }
