package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"
)

// Config is what llmbench eval was asked to do.
type Config struct {
	Endpoint, Model, APIKey string
	// Set is gsm8k, mmlu-pro or a .jsonl file.
	Set                           string
	Limit, Concurrency, MaxTokens int
	// Out is the run document: a new one, or one that exists (a speed run of the same
	// model, or another set's evaluation), which gains this set's entry. Resume is a
	// document whose entry was interrupted: its set, limit and settings are reused.
	Out, Resume string
	ToolVersion string
	Cache       Cache
}

// Outcome is a finished (or interrupted) evaluation: the document and where it is.
type Outcome struct {
	Doc   *rundoc.Run
	Path  string
	Entry *rundoc.Accuracy
}

// Execute runs the evaluation c describes, writing the document after each second of
// answers; on Ctrl-C it saves what was answered and returns ErrInterrupted.
func Execute(ctx context.Context, c Config, obs Observer, stderr io.Writer) (*Outcome, error) {
	doc, entry, err := open(ctx, &c, stderr)
	if err != nil {
		return nil, err
	}
	set, err := Load(ctx, c.Set, c.Cache)
	if err != nil {
		return nil, err
	}
	items := set.Limit(c.Limit)
	if err := begin(entry, set, items, c); err != nil {
		return nil, err
	}
	answers, err := os.OpenFile(answersPath(c.Out), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the answers file: %w", err)
	}
	defer answers.Close()
	save := func(a *rundoc.Accuracy) error {
		if a.Status == rundoc.AccuracyComplete && a.FinishedAt == nil {
			now := time.Now().UTC().Truncate(time.Second)
			a.FinishedAt = &now
		}
		return rundoc.WriteFile(c.Out, doc)
	}
	base, err := session.ServerBase(c.Endpoint, stderr)
	if err != nil {
		return nil, err
	}
	client := openai.NewClient(base+"/v1", c.APIKey, c.Concurrency)
	err = Run(ctx, client, items, entry, Options{Model: c.Model, Concurrency: c.Concurrency, MaxTokens: c.MaxTokens,
		Answers: answers, Save: save, Observer: obs})
	return &Outcome{Doc: doc, Path: c.Out, Entry: entry}, err
}

// answersPath is the answers file beside a document: run.json → run.answers.jsonl.
func answersPath(doc string) string {
	return strings.TrimSuffix(doc, ".json") + ".answers.jsonl"
}

// begin checks or fills the entry's set and plan.
func begin(entry *rundoc.Accuracy, set *Set, items []Item, c Config) error {
	if entry.Set.Name != "" {
		s := entry.Set
		if s.Name != set.Info.Name || s.Revision != set.Info.Revision || s.SHA256 != set.Info.SHA256 || s.Prompt != set.Info.Prompt {
			return fmt.Errorf("resuming %s: the set is now %s at %s, the document's %s at %s: %w", c.Out, set.Info.Name, set.Info.Revision, s.Name, s.Revision, ErrChanged)
		}
		return nil
	}
	entry.Set = set.Info
	entry.Planned = len(items)
	entry.Status = rundoc.AccuracyPending
	entry.StartedAt = time.Now().UTC().Truncate(time.Second)
	entry.Config = rundoc.EvalConfig{Endpoint: c.Endpoint, API: "chat", MaxTokens: c.MaxTokens, Concurrency: c.Concurrency,
		Limit: c.Limit, Answers: answersPath(baseName(c.Out))}
	entry.Items = []rundoc.EvalItem{}
	return nil
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// open reads or starts the document and finds (or adds) the set's entry.
func open(ctx context.Context, c *Config, stderr io.Writer) (*rundoc.Run, *rundoc.Accuracy, error) {
	if c.Resume != "" {
		return resume(c)
	}
	if c.Endpoint == "" {
		c.Endpoint = session.EnvEndpoint(stderr)
	}
	if c.Endpoint == "" {
		return nil, nil, errors.New("eval needs a server: --endpoint URL (or $" + session.BaseURLEnv + ")")
	}
	doc, err := describe(ctx, c, stderr)
	if err != nil {
		return nil, nil, err
	}
	name := c.Set
	if strings.HasSuffix(name, ".jsonl") {
		name = baseName(name)
	}
	if old := doc.AccuracyOf(name); old != nil {
		return nil, nil, fmt.Errorf("%s already holds an evaluation on %s: write this one elsewhere (-o), or finish that one with --resume %s", c.Out, name, c.Out)
	}
	doc.Accuracy = append(doc.Accuracy, rundoc.Accuracy{})
	return doc, &doc.Accuracy[len(doc.Accuracy)-1], nil
}

// resume reads an interrupted evaluation and takes its settings.
func resume(c *Config) (*rundoc.Run, *rundoc.Accuracy, error) {
	doc, err := rundoc.ReadFile(c.Resume)
	if err != nil {
		return nil, nil, err
	}
	for i := range doc.Accuracy {
		a := &doc.Accuracy[i]
		if a.Status != rundoc.AccuracyPending {
			continue
		}
		c.Out, c.Model = c.Resume, doc.Model.ServedName
		if c.Endpoint == "" {
			c.Endpoint = a.Config.Endpoint
		}
		c.Limit, c.Concurrency, c.MaxTokens = a.Config.Limit, a.Config.Concurrency, a.Config.MaxTokens
		switch {
		case slices.Contains(Names(), a.Set.Name):
			c.Set = a.Set.Name
		case !strings.HasSuffix(c.Set, ".jsonl"):
			return nil, nil, fmt.Errorf("%s: a custom set is resumed from its file: give --set FILE.jsonl with --resume", c.Resume)
		}
		return doc, a, nil
	}
	return nil, nil, fmt.Errorf("%s has no unfinished evaluation to resume", c.Resume)
}

// describe is the document the evaluation goes into: -o's when it exists (its model
// must be the server's), else a new one describing the server.
func describe(ctx context.Context, c *Config, stderr io.Writer) (*rundoc.Run, error) {
	base, err := session.ServerBase(c.Endpoint, stderr)
	if err != nil {
		return nil, err
	}
	info, err := engine.Probe(ctx, openai.NewClient(base+"/v1", c.APIKey, 1).HTTP, base)
	if err != nil {
		return nil, fmt.Errorf("probing %s: %w", base, err)
	}
	if c.Model == "" && len(info.Models) > 0 {
		c.Model = info.Models[0]
	}
	if c.Out != "" {
		doc, err := rundoc.ReadFile(c.Out)
		switch {
		case err == nil:
			if doc.Model.ServedName != c.Model {
				return nil, fmt.Errorf("%s measured model %q, this server is asked for %q: an evaluation goes into its own model's document", c.Out, doc.Model.ServedName, c.Model)
			}
			return doc, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	doc := &rundoc.Run{SchemaVersion: rundoc.SchemaVersion, ID: now.Format("20060102-150405") + "-eval", CreatedAt: now,
		Status: rundoc.RunMeasured, Tool: rundoc.Tool{Name: "llmbench", Version: c.ToolVersion},
		Config: rundoc.Config{API: "chat", Endpoint: c.Endpoint}, Prefill: []rundoc.PrefillRow{}, Decode: []rundoc.DecodeCell{},
		Client: &rundoc.Client{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}}
	info.ApplyTo(&doc.Engine, &doc.Model)
	if doc.Model.ServedName == "" {
		doc.Model.ServedName = c.Model
	}
	doc.Title = c.Model + " · " + c.Set
	if c.Out == "" {
		c.Out = strings.TrimSuffix(session.DefaultOutName(c.Model, now), ".json") + "-eval.json"
	}
	return doc, nil
}
