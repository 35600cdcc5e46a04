package session

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// document reads the run to resume, or makes a new one from the config, and reads
// its workload's files.
func (s *Session) document() error {
	c := &s.cfg
	var err error
	if s.loaded, err = c.Workload.load(); err != nil {
		return err
	}
	if c.Resume == "" {
		if s.doc, err = newRunDocument(c); err != nil {
			return err
		}
		s.doc.Config.Workload = c.Workload.plan(s.loaded)
		if w := s.doc.Config.Workload; w != nil && w.Sessions != nil && s.doc.Config.Rate != nil {
			s.doc.Config.Rate.RateOf = rundoc.RateOfSessions // the open loop's arrivals are sessions (openloop/sessions.go)
		}
		if s.loaded.document != nil {
			s.doc.Config.PromptSource = s.loaded.promptSource()
		}
		return nil
	}
	if s.doc, err = rundoc.ReadFile(c.Resume); err != nil {
		return err
	}
	if c.Out == "" {
		c.Out = c.Resume
	}
	if w := s.doc.Config.Workload; w != nil {
		if err := s.loaded.sameFiles(w, &c.Workload); err != nil {
			return err
		}
	}
	if src := s.doc.Config.PromptSource; src != "" && s.loaded.promptSource() != src {
		return fmt.Errorf("the run's contexts were filled with %s: give the file again with --prompt-text to resume", strings.TrimPrefix(src, "text:"))
	}
	return resumeTarget(c, s.doc)
}

// newRunDocument builds a new run document's config from c.
func newRunDocument(c *Config) (*rundoc.Run, error) {
	if c.Rate.active() {
		if c.Repeat != 1 {
			return nil, errors.New("--repeat measures the decode matrix and prefill rows; an open-loop run (--rate) gets its intervals from its requests")
		}
		return newRateDocument(c)
	}
	cfg, err := matrixConfig(c)
	if err != nil {
		return nil, err
	}
	if err := checkRequestFlags(c); err != nil {
		return nil, err
	}
	return newDocument(c, cfg), nil
}

// flagValue is a flag's value read by parse; an error names the flag.
func flagValue[T any](flag, value string, parse func(string) (T, error)) (T, error) {
	v, err := parse(value)
	if err != nil {
		return v, fmt.Errorf("--%s: %w", flag, err)
	}
	return v, nil
}

// matrixConfig is the closed-loop plan c asks for.
func matrixConfig(c *Config) (rundoc.Config, error) {
	var cfg rundoc.Config
	contexts, errC := flagValue("contexts", c.Contexts, rundoc.ParseTokenList)
	concurrency, errN := flagValue("concurrency", c.Concurrency, rundoc.ParseIntList)
	prefill, errP := flagValue("prefill", c.Prefill, rundoc.ParseTokenList)
	if err := cmp.Or(errC, errN, errP); err != nil {
		return cfg, err
	}
	if err := checkMatrix(c, contexts, concurrency, prefill); err != nil {
		return cfg, err
	}
	cfg = rundoc.Config{
		Contexts: contexts, Concurrency: concurrency, PrefillContexts: prefill,
		DurationS: c.Duration.Seconds(), MaxOutputTokens: c.MaxOutput,
		DecodeTest: "fixed-duration", PrefillMode: c.PrefillMode,
	}
	if c.Repeat > 1 {
		cfg.Repeat = c.Repeat
	}
	if c.KVCapacity != "" {
		kv, err := rundoc.ParseTokens(c.KVCapacity)
		if err != nil || kv <= 0 {
			return cfg, fmt.Errorf("--kv-capacity %q: give a positive token count", c.KVCapacity)
		}
		v := int64(kv)
		cfg.KVCapacity = &v
	}
	return cfg, nil
}

// checkMatrix refuses a closed-loop plan that measures nothing or noise.
func checkMatrix(c *Config, contexts, concurrency, prefill []int) error {
	switch {
	case len(contexts) == 0 && len(prefill) == 0:
		return errors.New("nothing to measure: --contexts and --prefill are both empty")
	case len(contexts) > 0 && len(concurrency) == 0:
		return errors.New("--concurrency is empty")
	case c.Duration < time.Second:
		return fmt.Errorf("--duration %s is too short: a window under a second measures noise", c.Duration)
	case c.MaxOutput < 1:
		return fmt.Errorf("--max-output must be at least 1")
	case c.Repeat < 1 || c.Repeat > 100:
		return fmt.Errorf("--repeat %d: give 1 to 100 measurements per cell", c.Repeat)
	case c.PrefillMode != "decode-warmup" && c.PrefillMode != "separate":
		return fmt.Errorf("--prefill-mode %q: use decode-warmup or separate", c.PrefillMode)
	}
	return nil
}

// checkRequestFlags checks the flags both loops share.
func checkRequestFlags(c *Config) error {
	if c.API != "chat" && c.API != "completions" {
		return fmt.Errorf("--api %q: use chat or completions", c.API)
	}
	if c.Format != "text" && c.Format != "md" && c.Format != "none" {
		return fmt.Errorf("--format %q: use text, md or none", c.Format)
	}
	if c.Timeslice < 0 || c.Timeslice > 0 && c.Timeslice < 10*time.Millisecond {
		return fmt.Errorf("--timeslice %s: a series' slice is 10ms or more", c.Timeslice)
	}
	return nil
}

// newDocument is a new run document for cfg: its id, time, tool and client, and what
// c says of the run.
func newDocument(c *Config, cfg rundoc.Config) *rundoc.Run {
	now := time.Now().UTC().Truncate(time.Second)
	seed := c.Seed
	cfg.API, cfg.Seed, cfg.Quick = c.API, &seed, c.Quick
	return &rundoc.Run{
		SchemaVersion: rundoc.SchemaVersion,
		ID:            now.Format("20060102-150405") + "-" + randomHex(3),
		Submitter:     c.Submitter,
		CreatedAt:     now,
		Tool:          rundoc.Tool{Name: "llmbench", Version: c.ToolVersion},
		LaunchCommand: c.LaunchCommand,
		Title:         c.Title,
		Config:        cfg,
		Client:        newClient(),
	}
}

// newClient is the client block of this machine.
func newClient() *rundoc.Client {
	return &rundoc.Client{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
