package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/progress"
	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"
)

func TestMain(m *testing.M) {
	// StartProcess runs this binary as a replay server in a process of its own.
	replay.ServeFromEnv()
	os.Exit(m.Run())
}

// discoveryDir is a recorded engine's discovery answers (sources in its README).
func discoveryDir(name string) string {
	return filepath.Join("..", "..", "internal", "engine", "testdata", "probe", name)
}

// conformanceRun is one `llmbench run` against a replayed engine.
type conformanceRun struct {
	doc     *rundoc.Run
	output  string
	err     error
	events  []byte
	log     []*replay.Record
	windows map[[2]int][2]time.Time
}

// runReplay starts cfg (in this process, or in its own with remote), runs the session
// llmbench run opens with args against it, and gathers the document, the events log
// and the server's own log.
func runReplay(t *testing.T, cfg replay.Config, remote bool, args ...string) *conformanceRun {
	t.Helper()
	var url string
	var serverLog func() []*replay.Record
	if remote {
		rs, err := replay.StartProcess(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		url = rs.URL
		serverLog = func() []*replay.Record { l, _ := rs.Log(); return l }
	} else {
		rs, err := replay.Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		url, serverLog = rs.URL, rs.Log
	}
	dir := t.TempDir()
	out, ev := filepath.Join(dir, "run.json"), filepath.Join(dir, "events.ndjson")
	all := append([]string{"--endpoint", url, "--out", out, "--events", ev, "--no-progress", "--format", "none", "--settle", "200ms", "--no-calibrate"}, args...)
	cr := &conformanceRun{windows: map[[2]int][2]time.Time{}}
	cr.output, cr.err = runSession(t, all...)
	cr.doc, _ = rundoc.ReadFile(out)
	cr.events, _ = os.ReadFile(ev)
	cr.log = serverLog()
	sc := bufio.NewScanner(bytes.NewReader(cr.events))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var e bench.Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == "cell" && e.Run.Open != 0 {
			cr.windows[[2]int{e.Context, e.Concurrency}] = [2]time.Time{time.Unix(0, e.Run.Open), time.Unix(0, e.Run.Close)}
		}
	}
	return cr
}

// runSession runs the session that "llmbench run ARGS…" would, through the library:
// the flags parsed into a session.Config as run binds them, then session.Open, Run
// and Close, with what the session reports as the output.
func runSession(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c := &session.Config{}
	var noProgress bool
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	addRunFlags(fl, c, &noProgress)
	addRateFlags(fl, &c.Rate)
	if err := fl.Parse(args); err != nil {
		return "", err
	}
	out := &syncBuffer{}
	if err := c.ResolveEndpoint(out); err != nil {
		return out.String(), err
	}
	if err := c.Given(fl.Changed); err != nil {
		return out.String(), err
	}
	c.ToolVersion = toolVersion()
	display := progress.New(out, out, noProgress)
	defer display.Close()
	s, err := session.Open(context.Background(), *c, display)
	if err != nil {
		return out.String(), err
	}
	defer s.Close()
	err = s.Run(context.Background())
	display.Close()
	return out.String(), err
}

// truth is what the server really sent in a cell's window.
func (cr *conformanceRun) truth(c *rundoc.DecodeCell, maxOutput int) (tokS, tbtMs float64) {
	w := cr.windows[[2]int{c.Context, c.Concurrency}]
	return replay.Truth(cr.log, w[0], w[1], func(r *replay.Record) bool {
		return r.MaxTokens == maxOutput && r.Prompt == c.PromptTokens
	})
}

// checkValid: a valid cell's total tok/s and TBT are within 3% of the server's own.
func (cr *conformanceRun) checkValid(t *testing.T, c *rundoc.DecodeCell, maxOutput int) {
	t.Helper()
	tokS, tbt := cr.truth(c, maxOutput)
	for _, f := range []struct {
		what      string
		got, want float64
	}{{"total tok/s", c.TotalTokS, tokS}, {"TBT", c.TBTMs, tbt}} {
		if f.want == 0 || abs(f.got-f.want)/f.want > 0.03 {
			t.Errorf("%s × %d: %s %.2f, the server's %.2f: more than 3%% off", rundoc.FormatTokens(c.Context), c.Concurrency, f.what, f.got, f.want)
		}
	}
	t.Logf("%5s × %-3d valid: %8.1f tok/s (server %8.1f), TBT %6.2f ms (server %6.2f), counts %s", rundoc.FormatTokens(c.Context), c.Concurrency, c.TotalTokS, tokS, c.TBTMs, tbt, c.TokenCountSource)
}

// checkRescore: re-scoring the events log gives the document's cells and rows, and
// every measured cell and row of the document is among them (an empty re-score would
// otherwise compare nothing and pass).
func (cr *conformanceRun) checkRescore(t *testing.T) {
	t.Helper()
	all, err := bench.RescoreAll(bytes.NewReader(cr.events))
	if err != nil {
		t.Fatal(err)
	}
	rescored := map[[2]int]bool{}
	for _, c := range all.Decode {
		rescored[[2]int{c.Context, c.Concurrency}] = true
		doc := cr.doc.Cell(c.Context, c.Concurrency)
		if doc == nil {
			t.Errorf("cell %s × %d re-scored from the log is not in the document", rundoc.FormatTokens(c.Context), c.Concurrency)
			continue
		}
		if diff := cmp.Diff(*doc, c); diff != "" {
			t.Errorf("cell %s × %d: document (-) and re-score (+) differ:\n%s", rundoc.FormatTokens(c.Context), c.Concurrency, diff)
		}
	}
	for _, c := range cr.doc.Decode {
		if wasScored(c.Status) && !rescored[[2]int{c.Context, c.Concurrency}] {
			t.Errorf("cell %s × %d (%s) has no events to re-score it from", rundoc.FormatTokens(c.Context), c.Concurrency, c.Status)
		}
	}
	prefills := map[int]rundoc.PrefillRow{}
	for _, p := range all.Prefill {
		prefills[p.Context] = p
	}
	for _, d := range cr.doc.Prefill {
		p, ok := prefills[d.Context]
		switch {
		case !ok && wasScored(d.Status):
			t.Errorf("prefill %d (%s) has no events to re-score it from", d.Context, d.Status)
		case ok:
			if diff := cmp.Diff(d, p); diff != "" {
				t.Errorf("prefill %d: document (-) and re-score (+) differ:\n%s", p.Context, diff)
			}
		}
	}
	if len(all.Decode)+len(all.Prefill) == 0 {
		t.Error("the events log re-scores to nothing")
	}
}

// wasScored: a cell or row with this status was sent to the server and scored.
func wasScored(s rundoc.Status) bool {
	return s == rundoc.StatusValid || s == rundoc.StatusInvalid
}

// fixtureServers is how each stream fixture (internal/replay/testdata, sources in
// its README) is served: the engine's recorded discovery, its tokenize route, and
// what else it does.
var fixtureServers = map[string]replay.Config{
	"vllm-continuous-usage":    {Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true},
	"vllm-no-continuous-usage": {Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true},
	"vllm-spec-decoding":       {Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true, Step: 25 * time.Millisecond},
	"vllm-spec-no-usage":       {Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Step: 25 * time.Millisecond},
	"vllm-reasoning":           {Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true, Reasoning: 20},
	"sglang":                   {Discovery: discoveryDir("sglang-0.5"), Tokenize: "sglang", Metrics: true},
	"llamacpp":                 {Discovery: discoveryDir("llamacpp-np4"), Tokenize: "llamacpp", Llama: &replay.LlamaSlots{NCtx: 16384, Slots: 4}},
	"llamacpp-spec":            {Discovery: discoveryDir("llamacpp-np4"), Tokenize: "llamacpp", Llama: &replay.LlamaSlots{NCtx: 16384, Slots: 4, Speculative: true}, Step: 25 * time.Millisecond},
	"llamacpp-b10587":          llamaServer,
	"ollama":                   {Discovery: discoveryDir("ollama")},
	"tgi":                      {Discovery: discoveryDir("tgi-3"), Tokenize: "tgi", Metrics: true},
	"trtllm":                   {Discovery: discoveryDir("trtllm"), Metrics: true, Step: 25 * time.Millisecond},
	"lmstudio":                 {Discovery: discoveryDir("lmstudio")},
	"gateway":                  {Ping: true, Comments: true, Model: "openrouter/replay"},
}

// llamaServer is llama-server b10587 as issue 34 ran it — -c 8192 -np 4 --metrics, a
// model named after its path — replayed from its source (internal/replay
// llamaserver.go): 4 slots of 2,048 tokens with a prompt cache each, the connection
// closed after every streamed response.
var llamaServer = replay.Config{Shape: "llamacpp-b10587", Discovery: discoveryDir("llamacpp-b10587"), Tokenize: "llamacpp", Metrics: true, ChatOverhead: 3,
	Llama: &replay.LlamaSlots{NCtx: 2048, Slots: 4, CloseAfterStream: true, ModelPath: "/home/user/models/tinyllama-random-3M-F32.gguf", Ftype: "all F32", Build: "b10587-0000000"}}

// TestConformance replays every engine's stream shape with exact timing and runs
// llmbench against it as a user would: every cell the fixture says is valid must be,
// with total tok/s and TBT within 3% of what the server really sent; every other
// cell must carry the fixture's flag and say why; the events log re-scores to the
// document.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("replays twelve engines for a few seconds each")
	}
	shapes, err := replay.Shapes()
	if err != nil {
		t.Fatal(err)
	}
	for name, shape := range shapes {
		cfg, ok := fixtureServers[name]
		if !ok {
			t.Errorf("stream fixture %s has no server in fixtureServers", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg.Shape = name
			cfg.ChatOverhead = 3
			// Requests of 48 tokens finish inside the window and are replaced, so both
			// finished and cut requests are counted; a window of 3 s holds enough tokens
			// that one chunk split by its edge is under 3% of them, and at one stream
			// (~1 s a request) at least two finished requests to bound an estimated
			// count even when a loaded machine slows the replay (2 s held only one).
			const maxOutput = 48
			cr := runReplay(t, cfg, false, "--contexts", "0,512", "--concurrency", "1,4", "--prefill", "512",
				"--duration", "3s", "--max-output", "48")
			if cr.err != nil || cr.doc == nil {
				t.Fatalf("run: %v\n%s", cr.err, cr.output)
			}
			for _, p := range cr.doc.Prefill {
				if p.Status != rundoc.StatusValid {
					t.Errorf("prefill %d: %s %s", p.Context, p.Status, p.Reason)
				}
			}
			for i := range cr.doc.Decode {
				c := &cr.doc.Decode[i]
				switch {
				case c.Status == rundoc.StatusOverCapacity:
					t.Errorf("%d × %d over capacity: %s", c.Context, c.Concurrency, c.Reason)
				case shape.Expect == "valid":
					if c.Status != rundoc.StatusValid {
						t.Errorf("%d × %d: %s (%s), flags %v; the fixture says valid", c.Context, c.Concurrency, c.Status, c.Reason, c.Flags)
						continue
					}
					cr.checkValid(t, c, maxOutput)
				default:
					if c.Status == rundoc.StatusValid || !slices.Contains(c.Flags, shape.Expect) || c.Reason == "" {
						t.Errorf("%d × %d: %s %q, flags %v; the fixture says not valid, flagged %s", c.Context, c.Concurrency, c.Status, c.Reason, c.Flags, shape.Expect)
					}
					t.Logf("%5s × %-3d %s: %s", rundoc.FormatTokens(c.Context), c.Concurrency, c.Status, c.Reason)
				}
			}
			cr.checkRescore(t)
		})
	}
}

func cell(doc *rundoc.Run, ctx, n int) *rundoc.DecodeCell {
	if doc == nil {
		return &rundoc.DecodeCell{Status: "missing", Reason: "no run document"}
	}
	c := doc.Cell(ctx, n)
	if c == nil {
		return &rundoc.DecodeCell{Status: "missing"}
	}
	return c
}

func hasFlag(c *rundoc.DecodeCell, f string) bool { return slices.Contains(c.Flags, f) }
