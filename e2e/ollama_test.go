package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// The plan of the end-to-end run. The agreement run asks for maxOutput tokens, as
// Ollama's own timings do. The matrix asks for matrixOutput: Ollama counts a request's
// tokens only when it finishes (it streams no per-chunk usage and has no tokenize
// route), so a cell is verified by requests that finish inside its 5 s window, at the
// 2K row's 45 tok/s per stream too. With the KV cache of 16K tokens, 8 streams at 2K
// (8 × 2,176) do not fit and must be marked over capacity, while 8 streams at context 0
// fit in the cache but not in the 4 slots: they queue.
const (
	prefillTokens = 2 * rundoc.K
	maxOutput     = 1024
	matrixOutput  = 128
	cellDuration  = "5s"
	// agreementDuration is the agreement cell's window: long enough that at least two
	// of its 1,024-token requests finish inside it even at ~300 tok/s (a loaded CI
	// machine), so that the server's counts bound the tokens its multi-byte chunks
	// carried (one finished request in 5 s was seen: too few to bound, invalid).
	agreementDuration = "10s"
	// Agreement with Ollama's own timings, as the issue asks.
	decodeTolerance  = 0.10
	prefillTolerance = 0.15
	// multiTokenChunks: the least average tokens per chunk that shows the model's
	// multi-byte text reached the measurement (2.05–2.10 was seen).
	multiTokenChunks = 1.2
	// agreementRounds bounds the measurement rounds of checkAgreement (about 24 s each;
	// rounds stop once both figures are judged, after one on a quiet machine).
	agreementRounds = 4
)

// TestOllamaEndToEnd drives the llmbench binary, as a user would, against llama.cpp
// served by Ollama: probe, then run, then read the run document.
func TestOllamaEndToEnd(t *testing.T) {
	bin := os.Getenv("LLMBENCH_OLLAMA")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but LLMBENCH_OLLAMA is not set: .ci/setup-40-ollama.sh builds Ollama and exports it")
		}
		t.Skip("LLMBENCH_OLLAMA is not set: source .ci/setup-40-ollama.sh (builds Ollama 0.6.5, a few minutes) to run the end-to-end test")
	}
	if testing.Short() {
		t.Skip("end-to-end test: about two minutes; skipped with -short")
	}
	started := time.Now()
	// Stop a little before go test's own -timeout, so that cleanup still stops Ollama.
	deadline := started.Add(8 * time.Minute)
	if dl, ok := t.Deadline(); ok {
		deadline = dl.Add(-15 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()

	llmbench := buildLLMBench(t, ctx)
	t.Logf("built llmbench in %v", time.Since(started).Round(time.Millisecond))

	s := startOllama(t, ctx, bin)
	warm, err := s.generate(ctx, "the model", 8)
	if err != nil {
		t.Fatalf("warming the model: %v", err)
	}
	if warm.EvalCount != 8 {
		t.Fatalf("warm-up generated %d tokens (%s), want 8", warm.EvalCount, warm.DoneReason)
	}
	t.Logf("ollama up, model loaded, %v in", time.Since(started).Round(time.Millisecond))
	checkEngineBuild(t, s)
	checkWritesMultibyte(t, ctx, s)

	t.Run("stream shapes", func(t *testing.T) { checkStreamShapes(t, ctx, s) })

	var served string
	t.Run("probe", func(t *testing.T) { served = checkProbe(t, ctx, llmbench, s) })
	if served == "" {
		t.Fatal("probe did not name the served model")
	}

	t.Run("agreement with ollama's own timings", func(t *testing.T) {
		checkAgreement(t, ctx, llmbench, s, served)
	})
	t.Run("matrix", func(t *testing.T) { checkMatrix(t, ctx, llmbench, s, served) })
	t.Run("open loop", func(t *testing.T) { checkOpenLoop(t, ctx, llmbench, s, served) })
	t.Run("sessions", func(t *testing.T) { checkSessions(t, ctx, llmbench, s, served) })
	t.Run("eval quick subset", func(t *testing.T) { checkEval(t, ctx, llmbench, s, served) })
	// Last: its 3,000-token requests stay in Ollama's KV cache and slow the decode of
	// what follows (seen: the agreement round after it read 665 tok/s against Ollama's
	// own 1,177), and what ran before slows it (after the open loop it ran at a third
	// of its speed alone, and its calibration bounded the count less tightly).
	t.Run("requests outlasting the window", func(t *testing.T) { checkLongRequests(t, ctx, llmbench, s, served) })

	if n := strings.Count(s.logText(), "starting llama server"); n != 1 {
		t.Errorf("ollama started its runner %d times, want once: a reload in the middle skews every figure", n)
	}
	t.Logf("end-to-end test took %v", time.Since(started).Round(time.Millisecond))
}

// checkWritesMultibyte: the served model writes what real models write beyond ASCII,
// whole multi-byte pieces and characters spelled in byte-fallback tokens, so that
// Ollama streams chunks of several tokens (gguf.MultibyteTinyLlama). Without that,
// this test would not meet the case that made every decode cell invalid on real
// Ollama (issue 22).
func checkWritesMultibyte(t *testing.T, ctx context.Context, s *ollamaServer) {
	t.Helper()
	r, err := s.generate(ctx, "the model", 256)
	if err != nil {
		t.Fatal(err)
	}
	nonASCII := 0
	for _, c := range r.Response {
		if c > unicode.MaxASCII {
			nonASCII++
		}
	}
	if !utf8.ValidString(r.Response) || nonASCII < 10 {
		t.Fatalf("256 tokens gave %d non-ASCII characters (valid UTF-8: %v): the model should write multi-byte text\n%q", nonASCII, utf8.ValidString(r.Response), r.Response)
	}
	t.Logf("256 tokens of output: %d characters, %d of them non-ASCII", utf8.RuneCountInString(r.Response), nonASCII)
}

// chunkRatio is the cell's tokens per token-bearing chunk: the server's count over
// the client's one per chunk.
func chunkRatio(c *rundoc.DecodeCell) float64 {
	if c.CellDetail == nil || c.ClientOutputTokens == nil || *c.ClientOutputTokens == 0 {
		return math.NaN()
	}
	return float64(c.OutputTokens) / float64(*c.ClientOutputTokens)
}

// buildLLMBench builds the binary the way a user does, or takes the one named by
// LLMBENCH_BIN (a release build, or a machine without the Go toolchain).
func buildLLMBench(t *testing.T, ctx context.Context) string {
	t.Helper()
	if bin := os.Getenv("LLMBENCH_BIN"); bin != "" {
		return bin
	}
	out := filepath.Join(t.TempDir(), "llmbench")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/llmbench")
	cmd.Dir = ".." // the module root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/llmbench: %v\n%s", err, b)
	}
	return out
}

// llmbenchCmd runs the binary and returns its stdout; a failure shows all it printed.
func llmbenchCmd(t *testing.T, ctx context.Context, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llmbench %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
	}
	t.Logf("llmbench %s (%v)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// checkEngineBuild checks, from the server's log, that the engine is the one the test
// means: vectorised CPU kernels where the CPU has them (a build without -march prefills
// ~10× slower), and the KV cache of numCtx × numParallel tokens given to --kv-capacity.
func checkEngineBuild(t *testing.T, s *ollamaServer) {
	t.Helper()
	log := s.logText()
	if runtime.GOARCH == "amd64" && cpuHasAVX2() && !strings.Contains(log, "AVX2=1") {
		t.Errorf("the CPU has AVX2 but Ollama's llama.cpp does not use it (no AVX2=1 in its system line): build it with CGO_CFLAGS/CGO_CXXFLAGS=\"-O3 -march=x86-64-v3\" as .ci/setup-40-ollama.sh does")
	}
	m := kvSizeLine.FindStringSubmatch(log)
	if m == nil {
		t.Logf("llama.cpp did not log kv_size; assuming %d = num_ctx %d × %d slots", kvTokens, numCtx, numParallel)
		return
	}
	if n, _ := strconv.Atoi(m[1]); n != kvTokens {
		t.Errorf("llama.cpp allocated a KV cache of %d tokens, the test assumes %d (num_ctx %d × OLLAMA_NUM_PARALLEL %d)", n, kvTokens, numCtx, numParallel)
	}
}

// probeInfo is the part of `llmbench probe --format json` this test reads.
type probeInfo struct {
	Engine        string  `json:"engine"`
	Version       *string `json:"version"`
	ServedModel   *string `json:"served_model"`
	MaxModelLen   *int64  `json:"max_model_len"`
	KVCacheTokens *int64  `json:"kv_cache_tokens"`
}

func checkProbe(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer) string {
	out := llmbenchCmd(t, ctx, llmbench, "probe", "--endpoint", s.base, "--format", "json")
	var p probeInfo
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("probe --format json printed something that is not its JSON: %v\n%s", err, out)
	}
	var v struct{ Version string }
	if err := s.getJSON(ctx, "/api/version", &v); err != nil {
		t.Fatal(err)
	}
	if p.Engine != "ollama" {
		t.Errorf("probe says engine %q, want ollama", p.Engine)
	}
	if p.Version == nil || *p.Version != v.Version {
		t.Errorf("probe says version %v, the server says %q", deref(p.Version), v.Version)
	}
	if p.ServedModel == nil || (*p.ServedModel != modelName && *p.ServedModel != modelName+":latest") {
		t.Fatalf("probe says served model %v, want %s", deref(p.ServedModel), modelName)
	}
	if p.MaxModelLen == nil || *p.MaxModelLen != numCtx {
		t.Errorf("probe says max_model_len %v, want the Modelfile's num_ctx %d", deref(p.MaxModelLen), numCtx)
	}
	// Ollama does not say how many parallel slots it has, so the probe cannot know the
	// whole KV cache: the run below passes it with --kv-capacity.
	t.Logf("probe: %s %s, model %s, max_model_len %v, kv_cache_tokens %v (the real cache: %d)",
		p.Engine, deref(p.Version), *p.ServedModel, deref(p.MaxModelLen), deref(p.KVCacheTokens), kvTokens)
	return *p.ServedModel
}

// checkAgreement measures single-stream decode and 2K prefill with llmbench, between
// two measurements of Ollama's own figures, and compares.
//
// A shared machine makes any rate move with the other work on it (on the 2-core
// development VM, back-to-back identical requests ranged from 500 to 1,200 tok/s), so a
// figure is judged only in a steady round: one where Ollama's own figures before and
// after llmbench's are both within the tolerance of their mean, and llmbench's own
// interval over its window is within half of it. Each figure passes in
// the first steady round where llmbench agrees, and fails after two steady rounds where
// it does not (or one, if no other round was steady). A figure with no steady round
// is inconclusive: the comparison is skipped with every number in the message.
func checkAgreement(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	decodeJ, prefillJ := &judgement{name: "decode"}, &judgement{name: "prefill"}
	judge := func(j *judgement, round int, a agreement, what string) {
		line := fmt.Sprintf("round %d: %s (steady: %v)", round, what, a.steady())
		t.Log(line)
		j.record(a, line)
	}
	for round := 1; round <= agreementRounds && (decodeJ.verdict() == inconclusive || prefillJ.verdict() == inconclusive); round++ {
		before, err := s.ownFigures(ctx, maxOutput, prefillTokens)
		if err != nil {
			t.Fatal(err)
		}
		doc := filepath.Join(t.TempDir(), "single.json")
		llmbenchCmd(t, ctx, llmbench, "run", "--endpoint", s.base, "--model", model,
			"--contexts", "0", "--concurrency", "1", "--prefill", rundoc.FormatTokens(prefillTokens),
			"--duration", agreementDuration, "--max-output", strconv.Itoa(maxOutput),
			"--kv-capacity", strconv.Itoa(kvTokens), "--out", doc, "--no-progress", "--format", "none")
		after, err := s.ownFigures(ctx, maxOutput, prefillTokens)
		if err != nil {
			t.Fatal(err)
		}
		run, err := rundoc.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		cell := run.Cell(0, 1)
		if !measuredRight(cell) {
			t.Fatalf("decode cell 0 × 1 = %+v, want a valid measured cell", cell)
		}
		if r := chunkRatio(cell); !(r > multiTokenChunks) {
			t.Errorf("decode cell 0 × 1: chunks carried %.2f tokens on average, want over %.2f: the model's multi-byte text should make Ollama hold tokens back", r, multiTokenChunks)
		}
		row := prefillRow(run, prefillTokens)
		if row == nil || row.Status != rundoc.StatusValid || row.PrefillFigures == nil {
			t.Fatalf("prefill row %d = %+v, want a valid measured row", prefillTokens, row)
		}
		decode := compare(cell.TotalTokS, before.decode, after.decode, decodeTolerance).within(totalCI(cell))
		judge(decodeJ, round, decode, fmt.Sprintf("decode 0 × 1: llmbench %.1f tok/s (TPOT %.2f ms, %.2f tokens a chunk) vs ollama eval_count/eval_duration %s",
			cell.TotalTokS, cell.TBTMs, chunkRatio(cell), decode))
		prefill := compare(row.PromptTokS, before.prefill, after.prefill, prefillTolerance)
		judge(prefillJ, round, prefill, fmt.Sprintf("prefill %s: llmbench %.1f tok/s (TTFT %.0f ms, %d prompt tokens) vs ollama prompt_eval_count/prompt_eval_duration %s",
			rundoc.FormatTokens(prefillTokens), row.PromptTokS, row.TTFTMs, row.PromptTokens, prefill))
	}

	var unjudged []string
	for _, j := range []*judgement{decodeJ, prefillJ} {
		switch j.final() {
		case disagrees:
			t.Errorf("llmbench's %s figure disagrees with Ollama's own timings while the engine was steady:\n%s", j.name, strings.Join(j.rounds, "\n"))
		case inconclusive:
			unjudged = append(unjudged, j.rounds...)
		default:
			t.Logf("%s agrees", j.name)
		}
	}
	if len(unjudged) > 0 && !t.Failed() {
		t.Skipf("inconclusive: the machine was too busy to hold Ollama's own rates steady (within the tolerance) in any round:\n%s", strings.Join(unjudged, "\n"))
	}
}

// judgement follows one figure through the rounds of checkAgreement.
type judgement struct {
	name         string
	rounds       []string // what each round measured, for the messages
	agreed       bool     // in a steady round
	steadyMisses int      // steady rounds where llmbench disagreed
}

const (
	agrees       = "agrees"
	disagrees    = "disagrees"
	inconclusive = "inconclusive"
)

// record takes one round's comparison; rounds after the verdict is known are ignored.
func (j *judgement) record(a agreement, line string) {
	if j.verdict() != inconclusive {
		return
	}
	j.rounds = append(j.rounds, line)
	if !a.steady() {
		return
	}
	if a.agrees() {
		j.agreed = true
	} else {
		j.steadyMisses++
	}
}

// verdict: agrees after a steady round where llmbench agreed, disagrees after two
// steady rounds where it did not, inconclusive until then.
func (j *judgement) verdict() string {
	switch {
	case j.agreed:
		return agrees
	case j.steadyMisses >= 2:
		return disagrees
	}
	return inconclusive
}

// final is the verdict once the rounds are over: a disagreement in the only steady
// round counts, since nothing contradicts it.
func (j *judgement) final() string {
	if v := j.verdict(); v != inconclusive || j.steadyMisses == 0 {
		return v
	}
	return disagrees
}

// agreement compares llmbench's figure with the mean of Ollama's own figure measured
// just before and just after it.
type agreement struct {
	llmbench, before, after, tolerance float64
	// spread is the relative half-width of llmbench's own 95% interval for its figure
	// (batch means over its window; 0 where it has none). An engine whose rate jumped
	// inside llmbench's window shows there and nowhere else: on CI, Ollama's own rate
	// moved between ~850 and ~1,400 tok/s within a minute, and the brackets before and
	// after, two seconds each, both caught the slow phase of a window that was not.
	spread float64
}

func compare(llmbench, before, after, tolerance float64) agreement {
	return agreement{llmbench: llmbench, before: before, after: after, tolerance: tolerance}
}

// within adds llmbench's own interval for its figure.
func (a agreement) within(ci *stats.Interval) agreement {
	if ci != nil && a.llmbench > 0 {
		a.spread = (ci.High - ci.Low) / 2 / a.llmbench
	}
	return a
}

func (a agreement) reference() float64 { return (a.before + a.after) / 2 }

// off is llmbench's relative difference from the reference.
func (a agreement) off() float64 { return a.llmbench/a.reference() - 1 }

func (a agreement) agrees() bool { return math.Abs(a.off()) <= a.tolerance }

// steady: Ollama's own two figures are both within the tolerance of their mean, and
// llmbench's window moved by less than half of it, so the engine's rate stayed inside
// the band llmbench's figure is held to. A wrong figure from a steady engine still
// has a narrow interval: this cannot excuse a bias, only a machine that changed speed.
func (a agreement) steady() bool {
	return math.Abs(a.before-a.after)/2 <= a.tolerance*a.reference() && a.spread <= a.tolerance/2
}

func (a agreement) String() string {
	window := ""
	if a.spread > 0 {
		window = fmt.Sprintf(" (its window ±%.1f%%)", 100*a.spread)
	}
	return fmt.Sprintf("%.1f (before %.1f, after %.1f): llmbench %+.1f%%%s, tolerance ±%.0f%%",
		a.reference(), a.before, a.after, 100*a.off(), window, 100*a.tolerance)
}

// totalCI is a cell's 95% interval for total_tok_s, nil where it has none.
func totalCI(c *rundoc.DecodeCell) *stats.Interval {
	if c.CellIntervals == nil {
		return nil
	}
	return c.CellIntervals.TotalTokSCI
}

// measuredRight says a cell was measured as it should be: valid, or invalid only
// because the tiny model's tokens (about 1,000 tok/s per stream, 1 ms gaps) arrived
// together while the 2-core machine was saturated (Ollama's runner keeps a core busy),
// so the client may have read them late, which the cell says.
func measuredRight(c *rundoc.DecodeCell) bool {
	if c == nil || c.DecodeFigures == nil || c.CellDetail == nil {
		return false
	}
	return c.Status == rundoc.StatusValid ||
		c.Status == rundoc.StatusInvalid && strings.Contains(c.Reason, "read them late") && slices.Contains(c.Flags, "timing_unresolved")
}

// boundTooLoose says a cell was measured but is not valid because its estimated count
// or TPOT is bounded only beyond 3%. Before TPOT counted from a stream's first token
// (vLLM's) and, for a stream the window cut into, from its last arrival before the
// window, what a first chunk carried entered the TPOT bound: on the development VM,
// 0 × 1 and 0 × 2 read ±4.1% and ±3.3% (2K × 2 ±3.1–3.6% in an earlier run; 2K × 4 a
// count bound of ±3.9–4.2%, from 4 counted requests). Since, every cell that fits was
// valid there, the largest bounds ±0.55% (count) and ±0.87% (TPOT). checkMatrix
// accepts one such cell, with its bound stated, for a loaded machine.
func boundTooLoose(c *rundoc.DecodeCell) bool {
	if c == nil || c.Status != rundoc.StatusInvalid || c.DecodeFigures == nil || c.CellDetail == nil {
		return false
	}
	loose := func(b *float64) bool { return b != nil && *b > 0.03 }
	return loose(c.TokenCountBound) || loose(c.TPOTBound)
}

// checkMatrix runs the small matrix and checks what a user reads off it: the cells past
// the KV cache were not sent, every other cell measured, and 8 streams on 4 slots queue.
func checkMatrix(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	doc := filepath.Join(t.TempDir(), "matrix.json")
	contexts, concurrency := []int{0, prefillTokens}, []int{1, 2, 4, 8}
	out := llmbenchCmd(t, ctx, llmbench, "run", "--endpoint", s.base, "--model", model,
		"--contexts", "0,"+rundoc.FormatTokens(prefillTokens), "--concurrency", "1,2,4,8",
		"--prefill", rundoc.FormatTokens(prefillTokens), "--duration", cellDuration,
		"--max-output", strconv.Itoa(matrixOutput), "--kv-capacity", strconv.Itoa(kvTokens),
		"--out", doc, "--no-progress", "--format", "none")
	run, err := rundoc.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	checkCapacitySentences(t, string(out), run)
	if run.Engine.Name != "ollama" || run.Model.ServedName != model {
		t.Errorf("run document names engine %q model %q, want ollama %s", run.Engine.Name, run.Model.ServedName, model)
	}
	if run.Capacity == nil || run.Capacity.KVCacheTokens == nil || *run.Capacity.KVCacheTokens != kvTokens || run.Capacity.Source != "flag" {
		t.Errorf("capacity = %+v, want %d tokens from the flag", run.Capacity, kvTokens)
	}

	fitting, loose := 0, 0
	for _, ctxTokens := range contexts {
		for _, n := range concurrency {
			c := run.Cell(ctxTokens, n)
			if c == nil {
				t.Errorf("cell %s × %d is missing from the run document", rundoc.FormatTokens(ctxTokens), n)
				continue
			}
			fits := n*(ctxTokens+matrixOutput) <= kvTokens
			if fits {
				fitting++
			}
			t.Logf("cell %s", cellSummary(c))
			switch {
			case !fits && c.Status != rundoc.StatusOverCapacity:
				t.Errorf("cell %s × %d: %d × (%d + %d) > %d KV tokens, status %q, want over_capacity", rundoc.FormatTokens(ctxTokens), n, n, ctxTokens, matrixOutput, kvTokens, c.Status)
			case !fits && c.DecodeFigures != nil:
				t.Errorf("cell %s × %d is over capacity but has figures: it must not be sent", rundoc.FormatTokens(ctxTokens), n)
			case fits && boundTooLoose(c):
				loose++
				t.Logf("cell %s × %d: not valid on its stated bound (count ±%.1f%%, TPOT ±%.1f%%): see boundTooLoose", rundoc.FormatTokens(ctxTokens), n, 100*deref0(c.TokenCountBound), 100*deref0(c.TPOTBound))
			case fits && !measuredRight(c):
				t.Errorf("cell %s × %d fits the KV cache but has status %q (%s), want valid", rundoc.FormatTokens(ctxTokens), n, c.Status, c.Reason)
			case fits && !(chunkRatio(c) > multiTokenChunks):
				t.Errorf("cell %s × %d: chunks carried %.2f tokens on average, want over %.2f (multi-byte output)", rundoc.FormatTokens(ctxTokens), n, chunkRatio(c), multiTokenChunks)
			case fits && c.CellDetail != nil && (c.Errors > 0 || c.EndedEarly > 0):
				// The tiny model never emits EOS and never repeats a token 30 times (which
				// makes Ollama cut the stream), so every request runs to max_output.
				t.Errorf("cell %s × %d: %d requests failed %v, %d ended early; want none", rundoc.FormatTokens(ctxTokens), n, c.Errors, c.ErrorSamples, c.EndedEarly)
			}
		}
	}

	if loose > 1 {
		t.Errorf("%d of %d cells that fit were not valid on their stated bounds: every cell should be bounded within 3%% (see boundTooLoose)", loose, fitting)
	}

	// 8 streams on 4 slots: Ollama queues the extra requests (its runner waits for a
	// free slot), so time to first token grows by about a request's length; nothing
	// fails (checked with every cell above).
	four, eight := run.Cell(0, 4), run.Cell(0, 8)
	if four == nil || eight == nil || four.DecodeFigures == nil || eight.DecodeFigures == nil {
		t.Fatal("cells 0 × 4 and 0 × 8 were not measured")
	}
	if eight.TTFTMs < 2*four.TTFTMs {
		t.Errorf("cell 0 × 8 TTFT %.0f ms vs 0 × 4 %.0f ms: with 4 slots, 8 streams should queue and wait far longer for their first token", eight.TTFTMs, four.TTFTMs)
	}
	// Ollama has no waiting gauge: the run infers the queue from what it saw.
	if eight.CellDetail == nil || !eight.Queueing || eight.PeakStreaming > 4 {
		t.Errorf("cell 0 × 8 on 4 slots: queueing %v, peak streaming %d; want queueing inferred with at most 4 streaming", eight.CellDetail != nil && eight.Queueing, peak(eight))
	}
	// 0 × 4 is not asserted either way: on a loaded machine Ollama has been seen to stream
	// at most 3 of 4 requests at once for a whole cell (a slot still busy with the
	// previous cell's cancelled request), which the client rightly reports as a queue.
	// That the inference stays quiet when every request has a slot is checked against a
	// fake server with exact slots (internal/bench TestQueueingInferredWithoutGauges).
	t.Logf("cell 0 × 4 on 4 slots: queueing %v, peak streaming %d", four.CellDetail != nil && four.Queueing, peak(four))
}

func peak(c *rundoc.DecodeCell) int {
	if c.CellDetail == nil {
		return 0
	}
	return c.PeakStreaming
}

func prefillRow(r *rundoc.Run, context int) *rundoc.PrefillRow {
	for i := range r.Prefill {
		if r.Prefill[i].Context == context {
			return &r.Prefill[i]
		}
	}
	return nil
}

func cellSummary(c *rundoc.DecodeCell) string {
	s := fmt.Sprintf("%s × %d: %s", rundoc.FormatTokens(c.Context), c.Concurrency, c.Status)
	if c.DecodeFigures != nil {
		s += fmt.Sprintf(", %.1f tok/s total, %.1f per request, TTFT %.0f ms, TPOT %.2f ms, %.2f tokens a chunk", c.TotalTokS, c.PerRequestTokS, c.TTFTMs, c.TBTMs, chunkRatio(c))
		if c.TokenCountBound != nil {
			s += fmt.Sprintf(", count bound ±%.2f%%", 100**c.TokenCountBound)
		}
		if c.TPOTBound != nil {
			s += fmt.Sprintf(", TPOT bound ±%.2f%%", 100**c.TPOTBound)
		}
	}
	if c.WindowStats != nil {
		s += fmt.Sprintf(", %.2f active, %d completed", c.AvgActiveRequests, c.CompletedRequests)
	}
	if d := c.CellDetail; d != nil && d.PeakStreaming > 0 {
		s += fmt.Sprintf(", streaming peak %d, queueing %v", d.PeakStreaming, d.Queueing)
	}
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s
}

func deref0(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func deref[T any](p *T) any {
	if p == nil {
		return "null"
	}
	return *p
}
