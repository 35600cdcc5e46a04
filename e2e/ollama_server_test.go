package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/gguf"
)

// The served setup. The KV cache Ollama 0.6.5 allocates is numCtx × numParallel:
// server/sched.go multiplies the model's num_ctx by OLLAMA_NUM_PARALLEL before
// loading (pending.opts.NumCtx = origNumCtx * numParallel), llm/server.go passes that
// product to the runner as --ctx-size with --parallel numParallel, and the runner
// (runner/llamarunner/cache.go) gives each parallel slot ctx-size / parallel of it.
// llama.cpp logs it as "kv_size = 16384" and "n_ctx_per_seq = 4096".
const (
	modelName   = "llmbench-tiny"
	numCtx      = 4096
	numParallel = 4
	kvTokens    = numCtx * numParallel
)

// modelfile imports the GGUF with a plain chat template (each message's text and a
// newline, so a prompt is its own tokens plus BOS and one newline token).
//
// num_thread 1: this runs on small shared CI machines (2 cores). ggml's worker threads
// spin between graph nodes, so two of them, Ollama's server and the measuring client
// stall each other on two cores: with 2 threads the development VM decoded at 150-400
// tok/s, with the client's rate up to 2× off Ollama's own; with 1 thread, at about
// 1,000 tok/s, with the two within a few percent.
var modelfile = `FROM ./tiny.gguf
TEMPLATE """{{- range .Messages }}{{ .Content }}
{{ end }}"""
PARAMETER num_ctx ` + strconv.Itoa(numCtx) + `
PARAMETER num_thread 1
PARAMETER temperature 1
`

// ollamaServer is an `ollama serve` this test started, with its own models directory.
type ollamaServer struct {
	dir     string
	base    string // http://127.0.0.1:port
	logPath string
	cmd     *exec.Cmd
	waitErr chan error
}

// startOllama writes the tiny model, starts `ollama serve` on a free loopback port and
// imports the model with `ollama create`. Everything stops at test cleanup.
func startOllama(t *testing.T, ctx context.Context, bin string) *ollamaServer {
	t.Helper()
	dir := t.TempDir()
	model, err := gguf.TinyLlama(gguf.MultibyteTinyLlama())
	if err != nil {
		t.Fatal(err)
	}
	if err := model.WriteFile(filepath.Join(dir, "tiny.gguf")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Modelfile"), []byte(modelfile), 0o644); err != nil {
		t.Fatal(err)
	}

	port := freePort(t)
	s := &ollamaServer{
		dir:     dir,
		base:    "http://127.0.0.1:" + strconv.Itoa(port),
		logPath: filepath.Join(dir, "serve.log"),
		waitErr: make(chan error, 1),
	}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Dir = dir
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	ownProcessGroup(s.cmd)
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting %s serve: %v", bin, err)
	}
	go func() { s.waitErr <- s.cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		stopGroup(s.cmd, false)
		select {
		case <-s.waitErr:
		case <-time.After(10 * time.Second):
			stopGroup(s.cmd, true)
			<-s.waitErr
		}
		if t.Failed() {
			t.Logf("ollama serve log (last 40 lines):\n%s", s.logTail(40))
		}
	})

	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		t.Fatalf("ollama serve did not come up: %v\n%s", err, s.logTail(20))
	}
	create := exec.CommandContext(ctx, bin, "create", modelName, "-f", "Modelfile")
	create.Dir = dir
	create.Env = s.env()
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create %s: %v\n%s", modelName, err, out)
	}
	return s
}

// env is the server's environment: its own port and models directory, 4 parallel
// slots, the model kept loaded for the whole test. HOME is the temp dir because
// `ollama serve` writes a key pair under ~/.ollama.
func (s *ollamaServer) env() []string {
	return append(os.Environ(),
		"HOME="+s.dir,
		"OLLAMA_HOST="+strings.TrimPrefix(s.base, "http://"),
		"OLLAMA_MODELS="+filepath.Join(s.dir, "models"),
		"OLLAMA_NUM_PARALLEL="+strconv.Itoa(numParallel),
		"OLLAMA_MAX_LOADED_MODELS=1",
		"OLLAMA_NOPRUNE=1",
		"OLLAMA_KEEP_ALIVE=1h",
	)
}

func (s *ollamaServer) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		var v struct{ Version string }
		err := s.getJSON(ctx, "/api/version", &v)
		if err == nil {
			return nil
		}
		select {
		case werr := <-s.waitErr:
			s.waitErr <- werr
			return fmt.Errorf("ollama serve exited: %v", werr)
		case <-ctx.Done():
			return fmt.Errorf("no answer on %s/api/version within %v: %w", s.base, limit, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *ollamaServer) logText() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

func (s *ollamaServer) logTail(n int) string {
	lines := strings.Split(strings.TrimRight(s.logText(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (s *ollamaServer) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return err
	}
	return doJSON(req, v)
}

func (s *ollamaServer) postJSON(ctx context.Context, path string, body, v any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return doJSON(req, v)
}

func doJSON(req *http.Request, v any) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading body: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s %s: decoding: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

// generateResult is the final object of a non-streamed /api/generate: Ollama's own
// timings, measured inside its runner (durations in nanoseconds).
type generateResult struct {
	Response           string `json:"response"`
	DoneReason         string `json:"done_reason"`
	PromptEvalCount    int64  `json:"prompt_eval_count"`
	PromptEvalDuration int64  `json:"prompt_eval_duration"`
	EvalCount          int64  `json:"eval_count"`
	EvalDuration       int64  `json:"eval_duration"`
}

// generate runs one /api/generate with the sampling the /v1 routes use (Ollama's
// OpenAI layer sets temperature 1 and top_p 1 when the request does not).
func (s *ollamaServer) generate(ctx context.Context, prompt string, numPredict int) (generateResult, error) {
	var r generateResult
	err := s.postJSON(ctx, "/api/generate", map[string]any{
		"model":  modelName,
		"prompt": prompt,
		"stream": false,
		"options": map[string]any{
			"num_predict": numPredict,
			"temperature": 1.0,
			"top_p":       1.0,
		},
	}, &r)
	if err != nil {
		return r, fmt.Errorf("generate: %w", err)
	}
	return r, nil
}

// tally adds up token counts and durations, so that a rate over several requests is
// total tokens over total time.
type tally struct {
	tokens int64
	nanos  int64
}

func (t *tally) add(tokens, nanos int64) { t.tokens += tokens; t.nanos += nanos }

func (t tally) perSecond() float64 {
	if t.nanos == 0 {
		return 0
	}
	return float64(t.tokens) / (float64(t.nanos) / 1e9)
}

// ollamaFigures are Ollama's own decode and prefill rates.
type ollamaFigures struct {
	decode, prefill float64
}

// ownFigures measures what llmbench's figures are compared with, from Ollama's own
// timings: decode = eval_count / eval_duration of two requests that generate maxOutput
// tokens from a short prompt (what each request of a context-0 cell does: the rate
// falls as the sequence grows, so the length must match); prefill =
// prompt_eval_count / prompt_eval_duration of two cold prompts of about prefillTokens.
func (s *ollamaServer) ownFigures(ctx context.Context, maxOutput, prefillTokens int) (ollamaFigures, error) {
	var dec tally
	for i := 0; i < 2; i++ {
		r, err := s.generate(ctx, fmt.Sprintf("%d the", nonce()), maxOutput)
		if err != nil {
			return ollamaFigures{}, err
		}
		if r.EvalCount != int64(maxOutput) {
			return ollamaFigures{}, fmt.Errorf("generate stopped after %d of %d tokens (%s): the tiny model should never pick EOS", r.EvalCount, maxOutput, r.DoneReason)
		}
		dec.add(r.EvalCount, r.EvalDuration)
	}
	var pre tally
	for i := 0; i < 2; i++ {
		r, err := s.generate(ctx, coldPrompt(prefillTokens), 1)
		if err != nil {
			return ollamaFigures{}, err
		}
		if d := r.PromptEvalCount - int64(prefillTokens); d < -int64(prefillTokens/50) || d > int64(prefillTokens/50) {
			return ollamaFigures{}, fmt.Errorf("cold prompt came to %d tokens, want about %d: the tiny vocabulary changed?", r.PromptEvalCount, prefillTokens)
		}
		pre.add(r.PromptEvalCount, r.PromptEvalDuration)
	}
	return ollamaFigures{decode: dec.perSecond(), prefill: pre.perSecond()}, nil
}

// oneTokenWords are words the tiny vocabulary holds whole ("▁the"), one token each.
var oneTokenWords = strings.Fields("the of and to in is was for that on as with by he at from his it an were are which")

// coldPrompt is about n tokens (BOS and the template's newline included) that start
// with a number never sent before, so that no prompt cache holds any of it.
func coldPrompt(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", nonce()) // a handful of digit tokens
	for i := 0; i < n-8; i++ {
		b.WriteByte(' ')
		b.WriteString(oneTokenWords[i%len(oneTokenWords)])
	}
	return b.String()
}

var nonceBase = time.Now().UnixNano() % 1_000_000

func nonce() int64 {
	nonceBase++
	return nonceBase
}

// kvSizeLine is llama.cpp's log line giving the KV cache it allocated.
var kvSizeLine = regexp.MustCompile(`kv_size = (\d+)`)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cpuHasAVX2 reports whether this Linux CPU has AVX2 (false where unknown).
func cpuHasAVX2() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "flags") {
			return strings.Contains(line+" ", " avx2 ")
		}
	}
	return false
}
