package bench

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/measure"
)

// settle waits, before a measurement that follows a cell, for the server to finish
// what the cell left running: its streams were cancelled, and an engine takes a while
// to abort them (a slot held by a cancelled request queues the next cell's, and a cold
// prefill measured beside them is slower). With the server's running gauge, it waits
// until the gauge reads 0, for at most SettleTimeout; without one, for the settle time.
func (r *Runner) settle(ctx context.Context) *Settle {
	start := time.Now()
	if gauge := r.Opts.Running; gauge != nil {
		limit := r.Opts.SettleTimeout
		if limit == 0 {
			limit = time.Minute
		}
		for {
			running, ok := gauge(ctx)
			if !ok {
				break // the gauge cannot be read: fall back to the settle time
			}
			if running <= 0 {
				return &Settle{WaitMs: measure.Millis(time.Since(start)), By: "gauge"}
			}
			if time.Since(start) > limit {
				return &Settle{WaitMs: measure.Millis(time.Since(start)), By: "gauge_timeout", Running: &running}
			}
			if !clock.Sleep(ctx, 100*time.Millisecond) {
				return nil
			}
		}
	}
	if d := r.Opts.Settle; d > 0 {
		if !clock.Sleep(ctx, d-time.Since(start)) {
			return nil
		}
		return &Settle{WaitMs: measure.Millis(time.Since(start)), By: "time"}
	}
	return nil
}
