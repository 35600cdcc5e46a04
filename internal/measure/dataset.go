package measure

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/workload"
)

// Workload is what a run sends besides random words, as its load shape reads it: the
// data the session loaded (the run document names it in config.workload) and how the
// server's prefix cache counts. Nil: random words, as before workloads.
type Workload struct {
	// Dataset's requests are sent in place of random words (sampled with each cell's
	// seed); with Sessions, its user turns are the sessions' messages.
	Dataset *workload.Dataset
	// Sessions makes every request a turn of a multi-turn conversation; its Texts and
	// From are the shape's to fill (the cell's words, the dataset's entries).
	Sessions *workload.SessionSpec
	// Trace or Schedule is replayed on its timestamps, Speed times faster (the open
	// loop only: a closed loop has no schedule).
	Trace    *workload.Trace
	Schedule *workload.Schedule
	Speed    float64
	// Pool gives every request one of its shared system prompts.
	Pool *workload.PrefixPool
	// Block is the server's prefix-cache block, in which ideal hits are counted.
	Block int
}

// IdealBounds says the workload's ideal cache hits bound what the server may find
// cached: prompts of random tokens that share only what the workload shares (a trace's
// blocks, a pool's prompts, synthetic sessions' turns). A dataset's prompts may share
// anything (a common system prompt), so a server finding more is no fault.
func (w *Workload) IdealBounds() bool { return w != nil && w.Dataset == nil }

// PromptSource names what the workload's prompts are made of, as
// prompt.Builder.Source names the matrix's: "dataset:FILE" or "schedule:FILE" for
// real text (a dataset's, sessions' turns from it, a fixed schedule's), else random
// words (synthetic sessions, a trace's blocks, a pool's prompts).
func (w *Workload) PromptSource() string {
	switch {
	case w.Dataset != nil:
		return "dataset:" + w.Dataset.Name
	case w.Schedule != nil:
		return "schedule:" + w.Schedule.Name
	}
	return prompt.RandomWords
}

// DatasetRequest is one request drawn from a dataset: its prompt, the tokens the
// server counts in it (0: not counted, where the server has no cheap tokenizer), and
// its answer length.
type DatasetRequest struct {
	Payload       prompt.Payload
	Input, Output int
}

// DatasetRequests draws n requests from d with the seed (workload.Dataset.Sample, as
// vLLM samples) and sizes them: each prompt counted by the server's own tokenizer where
// it has a cheap one (Exact), and each answer the length its line asks for, else its
// reference answer's length in the server's tokens (ShareGPT's, as vLLM takes it),
// else output.
func (s *Server) DatasetRequests(ctx context.Context, d *workload.Dataset, n int, seed uint64, output int) ([]DatasetRequest, error) {
	entries, err := d.Sample(n, seed, nil)
	if err != nil {
		return nil, err
	}
	out := make([]DatasetRequest, len(entries))
	sized := map[string]DatasetRequest{} // by file:line: a resampled entry is counted once
	for i, e := range entries {
		if r, ok := sized[e.Where]; ok {
			out[i] = r
			continue
		}
		r := DatasetRequest{Payload: EntryPayload(s.API, e), Output: cmp.Or(e.OutputTokens, output)}
		if s.Exact && s.Counter != nil {
			if r.Input, err = s.Counter.Count(ctx, r.Payload); err != nil {
				return nil, fmt.Errorf("counting %s's prompt: %w", e.Where, err)
			}
		}
		if e.OutputTokens == 0 && e.Completion != "" && s.TextTokenizer != nil {
			if ids, err := s.TextTokenizer.Tokenize(ctx, e.Completion); err == nil && len(ids) > 0 {
				r.Output = len(ids)
			}
		}
		sized[e.Where], out[i] = r, r
	}
	return out, nil
}

// EntryPayload is a dataset's entry as a request's prompt: its chat messages, or for
// the completions API its prompt (or its messages' text, a line apart).
func EntryPayload(api prompt.API, e workload.Entry) prompt.Payload {
	if api != prompt.Completions {
		return prompt.Payload{Messages: e.ChatMessages()}
	}
	if e.Messages == nil {
		return prompt.Payload{Text: e.Prompt}
	}
	parts := make([]string, len(e.Messages))
	for i, m := range e.Messages {
		parts[i] = m.Content
	}
	return prompt.Payload{Text: strings.Join(parts, "\n")}
}
