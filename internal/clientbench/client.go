package clientbench

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/llmbench/llmbench/internal/sysutil"
)

// RunClient runs one Go client under test against the server at o.BaseURL and measures
// it over its window. It is the body of the benchmark's client process.
func RunClient(ctx context.Context, o ClientOptions) (Result, error) {
	if l, err := sysutil.RaiseFileLimit(sysutil.FilesForStreams(o.Streams, false)); err != nil || !l.Enough() {
		slog.Warn("open files", "limit", l.String(), "err", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var c counters
	done := make(chan error, 1)
	switch o.Kind {
	case Floor:
		f, err := newFloorClient(o.BaseURL, o.Streams, o.MaxTokens)
		if err != nil {
			return Result{}, err
		}
		c = counters{tokens: f.tokens, errors: f.errs.Load}
		go func() { f.run(ctx); done <- nil }()
	case LLMBench:
		l := newLLMBenchClient(o.BaseURL, o.Streams, o.MaxTokens)
		c = counters{tokens: l.tokens, errors: l.errors}
		go func() { done <- l.run(ctx) }()
	default:
		return Result{}, fmt.Errorf("no Go client %q (floor or llmbench)", o.Kind)
	}
	type measured struct {
		res Result
		err error
	}
	m := make(chan measured, 1)
	var ctl windowControl = &selfTimed{o: o}
	if o.Control != nil {
		ctl = &parentTimed{r: bufio.NewReader(o.Control), window: o.Window}
	}
	go func() {
		res, err := measureWindow(ctx, o, c, ctl)
		m <- measured{res, err}
	}()
	select {
	case r := <-m:
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			slog.Warn("the client did not stop within a minute of its window")
		}
		return r.res, r.err
	case err := <-done:
		cancel()
		if err == nil {
			err = fmt.Errorf("the %s client stopped before its window closed", o.Kind)
		}
		return Result{}, err
	}
}
