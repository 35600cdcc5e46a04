package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Asker sends one chat completion (openai.Client.Chat).
type Asker interface {
	Chat(ctx context.Context, req *openai.ChatRequest) (*openai.ChatResponse, error)
}

// Observer is told how far the evaluation is (progress.Display).
type Observer interface {
	Step(desc string, done, total int, expect time.Duration)
	Tokens(n int)
}

// Options are how an evaluation asks.
type Options struct {
	Model       string
	Concurrency int
	MaxTokens   int
	// Tries is how many times a request the server was too busy for is sent (3 when 0).
	Tries int
	// Answers receives every raw answer as a JSON line; Save every checkpoint of the
	// entry (after each item, at most once a second, and at the end).
	Answers  io.Writer
	Save     func(*rundoc.Accuracy) error
	Observer Observer
}

// ErrInterrupted is Run's error when its context was cancelled: what was answered is
// saved, and a resume asks the rest.
var ErrInterrupted = errors.New("evaluation interrupted")

// Run asks every item of items that acc does not hold scored yet, opts.Concurrency at
// a time, and records each answer in acc (scored with accuracy.Score, summarized
// with accuracy.Summarize). acc.Planned must be len(items).
func Run(ctx context.Context, ask Asker, items []Item, acc *rundoc.Accuracy, opts Options) error {
	order := make(map[string]int, len(items))
	for i, it := range items {
		order[it.ID] = i
	}
	done := map[string]bool{}
	for _, it := range acc.Items {
		done[it.ID] = it.Error == ""
	}
	var todo []Item
	for _, it := range items {
		if !done[it.ID] {
			todo = append(todo, it)
		}
	}
	results := make(chan result)
	work := make(chan Item)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range max(1, opts.Concurrency) {
		go func() {
			for it := range work {
				select {
				case results <- askOne(runCtx, ask, it, opts):
				case <-runCtx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, it := range todo {
			select {
			case work <- it:
			case <-runCtx.Done():
				return
			}
		}
	}()
	return collect(ctx, results, len(todo), acc, order, opts)
}

type result struct {
	item rundoc.EvalItem
	resp accuracy.Response
	err  error
}

// collect records the answers as they come, saving at most once a second.
func collect(ctx context.Context, results <-chan result, n int, acc *rundoc.Accuracy, order map[string]int, opts Options) error {
	scored := acc.Scored
	var lastSave time.Time
	for i := 0; i < n; i++ {
		var r result
		select {
		case r = <-results:
		case <-ctx.Done():
			accuracy.Summarize(acc)
			return errors.Join(ErrInterrupted, save(acc, opts))
		}
		if r.err != nil && ctx.Err() != nil {
			continue // cut off by the interrupt: asked again on resume
		}
		if err := record(acc, r, order, opts); err != nil {
			return err
		}
		if r.err == nil {
			scored++
		}
		if opts.Observer != nil {
			opts.Observer.Tokens(r.resp.CompletionTokens)
			opts.Observer.Step(acc.Set.Name, scored, acc.Planned, time.Second)
		}
		if time.Since(lastSave) >= time.Second {
			accuracy.Summarize(acc)
			if err := save(acc, opts); err != nil {
				return err
			}
			lastSave = time.Now()
		}
	}
	accuracy.Summarize(acc)
	if err := save(acc, opts); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

// record puts one answer into acc in the set's order and into the answers file.
func record(acc *rundoc.Accuracy, r result, order map[string]int, opts Options) error {
	it := accuracy.Score(r.item, acc.Set.Scorer, r.resp)
	line := Answer{Set: acc.Set.Name, ID: it.ID, Response: r.resp}
	if r.err != nil {
		it = accuracy.Failed(r.item, r.err.Error())
		line = Answer{Set: acc.Set.Name, ID: it.ID, Error: it.Error}
	}
	if opts.Answers != nil {
		b, _ := json.Marshal(line)
		if _, err := opts.Answers.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("writing the answers: %w", err)
		}
	}
	i, found := slices.BinarySearchFunc(acc.Items, order[it.ID], func(x rundoc.EvalItem, pos int) int { return order[x.ID] - pos })
	if found {
		acc.Items[i] = it
	} else {
		acc.Items = slices.Insert(acc.Items, i, it)
	}
	return nil
}

func save(acc *rundoc.Accuracy, opts Options) error {
	if opts.Save == nil {
		return nil
	}
	return opts.Save(acc)
}

// askOne asks an item at temperature 0, trying again (after 1 s, then 2 s …) while
// the server is busy or away.
func askOne(ctx context.Context, ask Asker, it Item, opts Options) result {
	tries := opts.Tries
	if tries <= 0 {
		tries = 3
	}
	req := &openai.ChatRequest{
		Model:          opts.Model,
		Messages:       []openai.Message{{Role: "user", Content: it.Prompt}},
		MaxTokens:      openai.Ptr(opts.MaxTokens),
		RequestOptions: openai.RequestOptions{Temperature: openai.Ptr(0.0)},
	}
	var err error
	for try := range tries {
		var resp *openai.ChatResponse
		resp, err = ask.Chat(ctx, req)
		if err == nil {
			return result{item: it.EvalItem, resp: responseOf(resp)}
		}
		if !openai.Retryable(err) || !clock.Sleep(ctx, time.Duration(1<<try)*time.Second) {
			break
		}
	}
	return result{item: it.EvalItem, err: err}
}

// responseOf is the part of a chat completion that scoring reads.
func responseOf(c *openai.ChatResponse) accuracy.Response {
	var r accuracy.Response
	if len(c.Choices) > 0 {
		m := c.Choices[0].Message
		r.Content, r.Reasoning = m.Content, m.ReasoningContent
		if r.Reasoning == "" {
			r.Reasoning = m.Reasoning
		}
		if f := c.Choices[0].FinishReason; f != nil {
			r.Finish = *f
		}
	}
	if c.Usage != nil {
		r.CompletionTokens = c.Usage.CompletionTokens
	}
	return r
}
