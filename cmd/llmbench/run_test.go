package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// llmbenchBinary builds the command once for the tests that must drive it as a user
// does: as a separate process that gets signals.
func llmbenchBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llmbench-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "llmbench")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building llmbench: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// measured says a cell was measured right: valid, or invalid only because the machine
// was saturated while the emulator's tokens arrived together (the emulator runs in the
// same process, and tests share the machine), so the client may have read late, which
// the cell says.
func measured(c *rundoc.DecodeCell) bool {
	if c == nil || c.CellDetail == nil {
		return false
	}
	return c.Status == rundoc.StatusValid ||
		c.Status == rundoc.StatusInvalid && strings.Contains(c.Reason, "read them late") && slices.Contains(c.Flags, "timing_unresolved")
}

// runCmd runs "llmbench ARGS…" in-process and returns its output.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestRunEmbeddedEmulator: with no --endpoint, run measures the built-in emulator,
// says so first, and writes an emulated run document.
func TestRunEmbeddedEmulator(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	got, err := runCmd(t, "run", "--preset", "tiny", "--contexts", "0,256", "--concurrency", "1,2,64",
		"--prefill", "256", "--duration", "1s", "--max-output", "128", "--out", out, "--no-progress")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	if first := strings.SplitN(got, "\n", 2)[0]; !strings.Contains(first, "built-in emulated engine") {
		t.Errorf("first line %q does not say the emulator is being measured", first)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind() != rundoc.RunEmulated || doc.Engine.Name != "llmbench-sim" || doc.Engine.Preset != "tiny" {
		t.Errorf("document kind %q engine %q preset %q, want emulated llmbench-sim tiny", doc.Kind(), doc.Engine.Name, doc.Engine.Preset)
	}
	// tiny's KV cache holds 1,024 tokens: 64 × 128 output tokens cannot fit.
	if c := doc.Cell(0, 64); c == nil || c.Status != rundoc.StatusOverCapacity {
		t.Errorf("0 × 64 on tiny: %+v, want over capacity", c)
	}
	for _, c := range []*rundoc.DecodeCell{doc.Cell(0, 1), doc.Cell(256, 2)} {
		if !measured(c) {
			t.Errorf("cell %+v, want valid", c)
		}
	}
	if !strings.Contains(got, "Emulated") && !strings.Contains(got, "EMULATED") {
		t.Errorf("the final report does not say Emulated:\n%s", got)
	}
	// The client's ceiling was measured before the first cell, every measured cell
	// checked against it and its CPU time recorded, and the report shows the headroom.
	if cl := doc.Client; cl == nil || cl.Ceiling() <= 0 || cl.Cores < 1 {
		t.Fatalf("client block %+v, want a measured ceiling", cl)
	}
	for _, c := range []*rundoc.DecodeCell{doc.Cell(0, 1), doc.Cell(256, 2)} {
		if c.CellDetail == nil || c.ClientCPUS == nil || *c.ClientCPUS <= 0 {
			t.Errorf("cell %d × %d records no client_cpu_s", c.Context, c.Concurrency)
		}
		if nearCeiling := c.TotalTokS > bench.NearCeiling*doc.Client.Ceiling(); slices.Contains(c.Flags, "client_near_ceiling") != nearCeiling {
			t.Errorf("cell %d × %d at %.0f tok/s, ceiling %.0f: flags %v", c.Context, c.Concurrency, c.TotalTokS, doc.Client.Ceiling(), c.Flags)
		}
	}
	if ceiling := "this client reads up to " + report.FormatNumber("en", doc.Client.Ceiling(), 0) + " tok/s"; !strings.Contains(got, ceiling) || !strings.Contains(got, "Client headroom") {
		t.Errorf("the ceiling (%q) or the headroom was not shown:\n%s", ceiling, got)
	}
}

func TestRunBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--endpoint", "http://127.0.0.1:1"}, "127.0.0.1:1"},
		{[]string{"run", "--contexts", "abc"}, "--contexts"},
		{[]string{"run", "--api", "grpc"}, "--api"},
		{[]string{"run", "--duration", "10ms"}, "too short"},
		{[]string{"run", "--resume", "/nonexistent/run.json"}, "reading run document"},
		{[]string{"run", "--resume", "x.json", "--contexts", "0"}, "cannot be combined with --resume"},
		{[]string{"run", "--preset", "tiny", "--model", "nope", "--contexts", "0", "--concurrency", "1", "--prefill", "", "--out", filepath.Join(t.TempDir(), "x.json")}, "not served"},
	} {
		out, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error()+out, tc.want) {
			t.Errorf("llmbench %s: err %v, want one mentioning %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestRunDryRun: --dry-run probes and plans, prints what would be measured and how
// long its windows take, and measures and writes nothing. The quick plan on the
// default emulator measures 9 of its 15 decode cells (run --quick's own tables show 6
// over capacity), 3 s each.
func TestRunDryRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.json")
	got, err := runCmd(t, "run", "--quick", "--dry-run", "-o", out)
	if err != nil {
		t.Fatalf("run --quick --dry-run: %v\n%s", err, got)
	}
	for _, want := range []string{"Dry run", "(9 of 15 decode cells)", "0:27 of measurement windows (3s per cell)"} {
		if !strings.Contains(got, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--dry-run wrote %s (stat: %v)", out, err)
	}
}

// TestRunInterruptAndResume drives the binary as a user does: Ctrl-C during a cell
// leaves a complete document with that cell interrupted and exit status 130; --resume
// finishes it without redoing the finished cells.
func TestRunInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := llmbenchBinary(t)
	out := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(bin, "run", "--preset", "tiny", "--contexts", "0", "--concurrency", "1,2,4",
		"--prefill", "", "--duration", "2s", "--max-output", "128", "--out", out, "--no-progress")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the first cell is saved, then interrupt during the second.
	deadline := time.Now().Add(60 * time.Second)
	for {
		doc, err := rundoc.ReadFile(out)
		if err == nil && measured(&doc.Decode[0]) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the first cell was never saved:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(700 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit after Ctrl-C: %v, want status 130\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--resume") {
		t.Errorf("no resume hint after the interrupt:\n%s", stderr.String())
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatalf("document after Ctrl-C: %v", err)
	}
	statuses := []rundoc.Status{doc.Decode[0].Status, doc.Decode[1].Status, doc.Decode[2].Status}
	if !measured(&doc.Decode[0]) || statuses[1] != rundoc.StatusInterrupted || statuses[2] != rundoc.StatusPending {
		t.Fatalf("statuses after Ctrl-C = %v, want [valid interrupted pending]", statuses)
	}
	first := *doc.Decode[0].DecodeFigures
	ceiling := doc.Client.Ceiling()

	res := exec.Command(bin, "run", "--resume", out, "--no-progress")
	if b, err := res.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	}
	doc, err = rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Decode {
		if !measured(&c) {
			t.Errorf("after resume %d × %d is %s (%s)", c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	if *doc.Decode[0].DecodeFigures != first {
		t.Error("resume redid the finished cell")
	}
	if doc.FinishedAt == nil {
		t.Error("the resumed run has no finished_at")
	}
	// The ceiling measured when the run started is kept, not measured again.
	if doc.Client.Ceiling() != ceiling || ceiling <= 0 {
		t.Errorf("ceiling %.0f after resume, %.0f before", doc.Client.Ceiling(), ceiling)
	}
}

// TestRunCompletionsTokenIDs: on an engine that takes token-id prompts, the completions
// API sends ids, so every context is exactly its target.
func TestRunCompletionsTokenIDs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	events := filepath.Join(t.TempDir(), "events.ndjson")
	got, err := runCmd(t, "run", "--no-calibrate", "--preset", "tiny", "--api", "completions", "--contexts", "300", "--concurrency", "1",
		"--prefill", "200,300", "--duration", "1s", "--max-output", "64", "--out", out, "--events", events, "--no-progress", "--format", "none")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Prefill {
		if p.Status != rundoc.StatusValid || p.PromptTokens != p.Context {
			t.Errorf("prefill %d: %s, %d prompt tokens; want valid and exact", p.Context, p.Status, p.PromptTokens)
		}
	}
	if c := doc.Cell(300, 1); !measured(c) || c.PromptTokens != 300 {
		t.Errorf("cell 300 × 1: %s with %d prompt tokens", c.Status, c.PromptTokens)
	}
	// The events log re-scores to the document's figures.
	f, err := os.Open(events)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cells, err := bench.Rescore(f)
	if err != nil || len(cells) != 1 {
		t.Fatalf("rescore: %v, %d cells", err, len(cells))
	}
	// The log holds wall-clock times and the live figures monotonic ones: a token right
	// at the window's edge may fall on the other side of it.
	if a, b := cells[0].TotalTokS, doc.Cell(300, 1).TotalTokS; math.Abs(a-b) > 0.01*b {
		t.Errorf("re-scored total tok/s %v, document %v", a, b)
	}
}

// TestRunForcedPastCapacity: told the KV cache is bigger than it is, run sends a cell the
// emulator cannot hold; the cell records the server queueing and preempting.
func TestRunForcedPastCapacity(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	// tiny: 1,024 KV tokens, 4 sequences at once. 4 running share the 256-token context
	// and grow to 240 tokens each: 1,216 tokens, past the cache.
	got, err := runCmd(t, "run", "--no-calibrate", "--preset", "tiny", "--kv-capacity", "1M", "--contexts", "256", "--concurrency", "8",
		"--prefill", "", "--duration", "2s", "--max-output", "240", "--out", out, "--no-progress", "--format", "none")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Cell(256, 8)
	if c == nil || c.CellDetail == nil || c.Server == nil {
		t.Fatalf("cell has no server metrics: %+v", c)
	}
	if !c.Queueing || c.Server.Waiting == nil || c.Server.Waiting.Max == 0 {
		t.Errorf("no queueing recorded: %+v", c.Server)
	}
	if c.Preemptions == nil || *c.Preemptions == 0 {
		t.Errorf("no preemptions recorded: %+v", c.Server)
	}
	if doc.Capacity == nil || doc.Capacity.Source != "flag" {
		t.Errorf("capacity source = %+v, want flag", doc.Capacity)
	}
	t.Logf("8 streams on 4 slots: %s, waiting max %.0f, preemptions %d", c.Status, c.Server.Waiting.Max, *c.Preemptions)
}
