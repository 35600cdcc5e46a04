package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu                sync.Mutex
	said, notes, logs []string
	steps, tokens     int
}

func (r *recorder) Step(string, int, int, time.Duration) { r.mu.Lock(); r.steps++; r.mu.Unlock() }
func (r *recorder) Tokens(n int)                         { r.mu.Lock(); r.tokens += n; r.mu.Unlock() }
func (r *recorder) Log(line string)                      { r.mu.Lock(); r.logs = append(r.logs, line); r.mu.Unlock() }
func (r *recorder) Say(line string)                      { r.mu.Lock(); r.said = append(r.said, line); r.mu.Unlock() }
func (r *recorder) Note(line string)                     { r.mu.Lock(); r.notes = append(r.notes, line); r.mu.Unlock() }

// emulatorConfig is a one-cell plan on the tiny emulator, as run's flags default it.
func emulatorConfig(out string) Config {
	return Config{Preset: "tiny", API: "chat", Contexts: "0", Concurrency: "1", Duration: time.Second, MaxOutput: 32,
		PrefillMode: "decode-warmup", Repeat: 1, Format: "none", NoCalibrate: true, Out: out, Seed: 1, Telemetry: "auto", Price: "auto",
		StartTimeout: time.Minute, Settle: 100 * time.Millisecond, SettleTimeout: time.Second}
}

// TestOpenRunClose: Open starts the emulator and writes the pending document, Run
// measures it and finishes the document, and the observer hears all of it.
func TestOpenRunClose(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "run.json")
	rec := &recorder{}
	s, err := Open(ctx, emulatorConfig(out), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pending, err := rundoc.ReadFile(out)
	if err != nil || len(pending.Decode) != 1 || pending.Decode[0].Status != rundoc.StatusPending {
		t.Fatalf("after Open: %v, want the document with its cell pending", err)
	}
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil || doc.FinishedAt == nil || doc.Kind() != rundoc.RunEmulated || doc.Decode[0].Status == rundoc.StatusPending {
		t.Fatalf("after Run: %v, finished %v, kind %s", err, doc.FinishedAt, doc.Kind())
	}
	if len(rec.said) == 0 || !strings.Contains(rec.said[0], "built-in emulated engine") || rec.steps == 0 || rec.tokens == 0 {
		t.Errorf("observer: said %q, %d steps, %d tokens", rec.said, rec.steps, rec.tokens)
	}
	if len(rec.logs) < 2 || !strings.Contains(rec.logs[0], "writing "+out) || !strings.Contains(rec.logs[1], "--no-calibrate") {
		t.Errorf("log lines %q, want the server and the skipped ceiling first", rec.logs)
	}
}

// TestOpenDryRun: a dry run plans and writes nothing, and has nothing to run.
func TestOpenDryRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	c := emulatorConfig(out)
	c.DryRun = true
	s, err := Open(context.Background(), c, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.Contains(s.DryRun(), "Dry run") || s.Run(context.Background()) == nil {
		t.Errorf("dry run: %q, and Run did not refuse", s.DryRun())
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote %s (%v)", out, err)
	}
}

// TestOpenFailureRemovesThePendingDocument: an Open that fails after writing the
// document removes it, since nothing was measured, and says so.
func TestOpenFailureRemovesThePendingDocument(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	c := emulatorConfig(out)
	c.Events = filepath.Join(dir, "no-such-dir", "events.ndjson")
	rec := &recorder{}
	if s, err := Open(context.Background(), c, rec); err == nil || s != nil || !strings.Contains(err.Error(), "opening events log") {
		t.Fatalf("Open: %v, want the events log's error", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pending document is still there (%v)", err)
	}
	if len(rec.notes) == 0 || rec.notes[len(rec.notes)-1] != "Nothing was measured, so "+out+" was removed." {
		t.Errorf("notes %q", rec.notes)
	}
}
