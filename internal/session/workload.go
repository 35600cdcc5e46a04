package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/workload"
)

// Workload is the workload part of Config (docs/workloads.md): what a run sends
// besides random words, as its flags give it.
type Workload struct {
	// Dataset is --dataset FILE: JSONL of prompts or messages, or ShareGPT's JSON.
	Dataset string
	// PromptText is --prompt-text FILE: real text as the matrix's contexts' filler.
	PromptText string
	// Turns makes every request a turn of a multi-turn session (--turns); each new
	// user message has UserTokens tokens (--user-tokens) unless the dataset gives it,
	// after Think (--think-time).
	Turns      int
	UserTokens int
	Think      string
	// Trace is --trace FILE, a Mooncake trace or a fixed schedule replayed on its
	// timestamps TraceSpeed times faster; a Mooncake hash id stands for TraceBlock
	// tokens.
	Trace      string
	TraceSpeed float64
	TraceBlock int
	// PrefixPrompts shared system prompts of PrefixTokens tokens, each request
	// drawing one (--num-prefix-prompts, --prefix-prompt-length).
	PrefixPrompts, PrefixTokens int
}

// WorkloadFlags are run's workload flags; the files among them are given again on
// --resume (the document records their names and hashes, not where they are).
var WorkloadFlags = []string{"dataset", "prompt-text", "turns", "user-tokens", "think-time", "trace", "trace-speed",
	"trace-block-size", "num-prefix-prompts", "prefix-prompt-length"}

// workloadPlanFlags define the plan; they cannot change on --resume.
var workloadPlanFlags = []string{"turns", "user-tokens", "think-time", "trace-speed", "trace-block-size", "num-prefix-prompts", "prefix-prompt-length"}

// active says a workload other than random words was asked for.
func (w *Workload) active() bool {
	return w.Dataset != "" || w.Turns > 0 || w.Trace != "" || w.PrefixPrompts > 0
}

// check refuses workload flags that cannot go together, or with the loop asked for.
func (w *Workload) check(api string, rate bool) error {
	switch {
	case w.Turns < 0 || w.UserTokens < 0 || w.PrefixPrompts < 0 || w.PrefixTokens < 0 || w.TraceBlock < 0:
		return errors.New("--turns, --user-tokens, --num-prefix-prompts, --prefix-prompt-length and --trace-block-size cannot be negative")
	case w.Turns > 0 && w.Dataset == "" && w.UserTokens < 1:
		return errors.New("--turns without --dataset sends synthetic user messages: --user-tokens must be at least 1")
	case w.Turns > rundoc.MaxTurns:
		return fmt.Errorf("--turns %d: at most %d", w.Turns, rundoc.MaxTurns)
	case w.Turns > 0 && api != "chat":
		return errors.New("--turns sends conversations: they need --api chat")
	case w.Trace != "" && (w.Dataset != "" || w.Turns > 0 || w.PrefixPrompts > 0):
		return errors.New("--trace replays its own requests: it takes no --dataset, --turns or --num-prefix-prompts")
	case w.PrefixPrompts > 0 && (w.Dataset != "" || w.Turns > 0):
		return errors.New("--num-prefix-prompts puts shared prompts before random words: it takes no --dataset or --turns")
	case (w.PrefixPrompts > 0) != (w.PrefixTokens > 0):
		return errors.New("--num-prefix-prompts and --prefix-prompt-length go together")
	case w.PrefixPrompts > 0 && !rate:
		return errors.New("--num-prefix-prompts is an open-loop workload: give --rate")
	case w.PromptText != "" && (rate || w.active()):
		return errors.New("--prompt-text fills the matrix's contexts: it takes no --rate or other workload")
	case w.Trace != "" && !(w.TraceSpeed > 0):
		return fmt.Errorf("--trace-speed %v: give a factor above 0", w.TraceSpeed)
	}
	if w.Think == "" {
		w.Think = "0s"
	}
	if _, err := workload.ParseThink(w.Think); err != nil {
		return fmt.Errorf("--think-time: %w", err)
	}
	return nil
}

// plan is the run document's workload (config.workload) for the flags, with what the
// files say of themselves; nil for random words.
func (w *Workload) plan(l *loaded) *rundoc.Workload {
	if !w.active() {
		return nil
	}
	out := &rundoc.Workload{}
	if l.dataset != nil {
		out.Dataset = &rundoc.WorkloadFile{File: l.dataset.Name, Format: l.dataset.Format, SHA256: l.hashes[w.Dataset], Entries: len(l.dataset.Entries)}
	}
	if w.Turns > 0 {
		out.Sessions = &rundoc.SessionPlan{Turns: w.Turns, Think: w.Think}
		if l.dataset == nil {
			out.Sessions.UserTokens = w.UserTokens
		}
	}
	if w.Trace != "" {
		t := &rundoc.TracePlan{Speed: w.TraceSpeed}
		t.File, t.SHA256 = filepath.Base(w.Trace), l.hashes[w.Trace]
		if l.trace != nil {
			t.Format, t.Entries, t.BlockSize = "mooncake", len(l.trace.Requests), l.trace.BlockSize
		} else {
			t.Format, t.Entries = "schedule", len(l.schedule.Entries)
		}
		out.Trace = t
	}
	if w.PrefixPrompts > 0 {
		out.PrefixPool = &rundoc.PrefixPoolPlan{Prompts: w.PrefixPrompts, Tokens: w.PrefixTokens}
	}
	return out
}

// loaded is a workload's files as read, with their hashes by path.
type loaded struct {
	dataset  *workload.Dataset
	trace    *workload.Trace
	schedule *workload.Schedule
	document *prompt.Document
	hashes   map[string]string
}

// load reads the workload's files.
func (w *Workload) load() (*loaded, error) {
	l := &loaded{hashes: map[string]string{}}
	for _, f := range []struct {
		path string
		read func(name string, b []byte) error
	}{
		{w.Dataset, func(name string, b []byte) (err error) { l.dataset, err = workload.ParseDataset(name, b); return }},
		{w.Trace, func(name string, b []byte) (err error) {
			l.trace, l.schedule, err = parseTrace(name, b, w.TraceBlock)
			return
		}},
		{w.PromptText, func(name string, b []byte) (err error) {
			l.document, err = prompt.ParseDocument(filepath.Base(name), string(b))
			return
		}},
	} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return nil, fmt.Errorf("reading the workload: %w", err)
		}
		sum := sha256.Sum256(b)
		l.hashes[f.path] = hex.EncodeToString(sum[:])
		if err := f.read(f.path, b); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// parseTrace reads a replay's file: a Mooncake trace (lines with "input_length"), or
// else a fixed schedule.
func parseTrace(name string, b []byte, block int) (*workload.Trace, *workload.Schedule, error) {
	if strings.Contains(string(b[:min(len(b), 4096)]), `"input_length"`) {
		t, err := workload.ParseMooncake(name, b, block)
		return t, nil, err
	}
	s, err := workload.ParseSchedule(name, b)
	return nil, s, err
}

// runWorkload is what the load shapes send, from the document's workload and the
// files read: their data, the server's cache block and the speed.
func (l *loaded) runWorkload(w *rundoc.Workload) *measure.Workload {
	if w == nil {
		return nil
	}
	out := &measure.Workload{Dataset: l.dataset, Trace: l.trace, Schedule: l.schedule, Block: w.CacheBlock}
	if s := w.Sessions; s != nil {
		think, _ := workload.ParseThink(s.Think) // checked when the run was planned
		out.Sessions = &workload.SessionSpec{Turns: s.Turns, UserTokens: s.UserTokens, Think: think}
	}
	if t := w.Trace; t != nil {
		out.Speed = t.Speed
	}
	if p := w.PrefixPool; p != nil {
		out.Pool = &workload.PrefixPool{Prompts: p.Prompts, Tokens: p.Tokens}
	}
	return out
}

// sameFiles checks that a resumed run reads the files its document was planned with:
// each given again, with the hash recorded.
func (l *loaded) sameFiles(w *rundoc.Workload, c *Workload) error {
	check := func(flag, path string, f *rundoc.WorkloadFile) error {
		switch {
		case f == nil:
			return nil
		case path == "":
			return fmt.Errorf("the run replays %s: give it again with --%s to resume", f.File, flag)
		case f.SHA256 != "" && l.hashes[path] != f.SHA256:
			return fmt.Errorf("--%s %s is not the file this run was planned with (%s: another SHA-256)", flag, path, f.File)
		}
		return nil
	}
	if err := check("dataset", c.Dataset, w.Dataset); err != nil {
		return err
	}
	if w.Trace != nil {
		return check("trace", c.Trace, &w.Trace.WorkloadFile)
	}
	return nil
}

// cacheBlock is the server's prefix-cache block in tokens: vLLM's and the emulator's
// 16, a cache of single tokens elsewhere (SGLang's radix tree, llama.cpp's slots).
func cacheBlock(info *engine.Info) int {
	switch info.Engine {
	case engine.VLLM, engine.Sim:
		return 16
	}
	return 1
}

// planWorkload completes a new document's workload once the server is known: its
// cache block, and a replay's rate and ideal hits.
func planWorkload(doc *rundoc.Run, info *engine.Info, l *loaded) error {
	w := doc.Config.Workload
	if w == nil {
		return nil
	}
	w.CacheBlock = cacheBlock(info)
	t := w.Trace
	if t == nil {
		return nil
	}
	var offsets []time.Duration
	var err error
	if l.trace != nil {
		offsets, err = l.trace.Offsets(t.Speed)
	} else {
		offsets, err = l.schedule.Offsets(t.Speed)
	}
	if err != nil {
		return err
	}
	rc := doc.Config.Rate
	n := len(offsets)
	if rc.Requests > 0 && rc.Requests < n {
		n = rc.Requests
	}
	t.Requests = n
	// To 4 significant digits: the rate only names the cell (its schedule is the file's).
	rate := openloop.TraceRate(offsets, n)
	if r, err := strconv.ParseFloat(strconv.FormatFloat(float64(rate), 'g', 4, 64), 64); err == nil {
		rate = rundoc.Rate(r)
	}
	if !(rate > 0) {
		return fmt.Errorf("--trace %s: its first %d requests are sent at once; a replay needs a span of time", t.File, n)
	}
	rc.Rates, rc.Arrival = []rundoc.Rate{rate}, rundoc.ArrivalTrace
	if l.trace != nil {
		tr := &workload.Trace{Name: l.trace.Name, BlockSize: l.trace.BlockSize, Requests: l.trace.Requests[:n]}
		_, ratio := tr.IdealCached(workload.CacheModel{Block: w.CacheBlock})
		t.IdealCacheHitRatio = measure.RoundPtr(ratio, 4)
	}
	return nil
}

// writeWorkloadPlan is the dry run's line on the workload, if any.
func writeWorkloadPlan(w io.Writer, wl *rundoc.Workload) {
	if wl == nil {
		return
	}
	var parts []string
	if d := wl.Dataset; d != nil {
		parts = append(parts, fmt.Sprintf("dataset %s (%s, %d entries)", d.File, d.Format, d.Entries))
	}
	if s := wl.Sessions; s != nil {
		parts = append(parts, fmt.Sprintf("sessions of %d turns, think %s (with --rate: a rate is sessions a second)", s.Turns, s.Think))
	}
	if t := wl.Trace; t != nil {
		parts = append(parts, fmt.Sprintf("replay of %s (%s, %d of %d requests, ×%v)", t.File, t.Format, t.Requests, t.Entries, t.Speed))
	}
	if p := wl.PrefixPool; p != nil {
		parts = append(parts, fmt.Sprintf("%d shared system prompts of %d tokens", p.Prompts, p.Tokens))
	}
	fmt.Fprintf(w, "  workload: %s\n", strings.Join(parts, "; "))
}

// workloadSizesOwn says the workload's prompts are its own (a dataset, sessions, a
// replay), not --input-len's; a pool's are random words of --input-len.
func workloadSizesOwn(w *rundoc.Workload) bool {
	return w != nil && w.PrefixPool == nil
}

// promptSource names what the matrix's contexts are filled with
// (prompt.Builder.Source): the text given with --prompt-text, else random words.
func (l *loaded) promptSource() string {
	return (&prompt.Builder{Document: l.document}).Source()
}
