package engine

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/golden"
)

// fixtureServer serves a directory of recorded answers: the answer to a path is the
// file named after it ("/v1/models" → v1_models.json or .txt), whatever the method
// and query; anything else is 404, as on a server without that route.
type fixtureServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newFixtureServer(t *testing.T, dir string) *fixtureServer {
	t.Helper()
	fs := &fixtureServer{hits: map[string]int{}}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.hits[r.URL.Path]++
		fs.mu.Unlock()
		name := strings.ReplaceAll(strings.Trim(r.URL.Path, "/"), "/", "_")
		for _, ext := range []string{".json", ".txt"} {
			b, err := os.ReadFile(filepath.Join(dir, name+ext))
			if err != nil {
				continue
			}
			if ext == ".json" {
				w.Header().Set("Content-Type", "application/json")
			} else {
				w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
			}
			w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"detail":"Not Found"}`))
	}))
	t.Cleanup(fs.Close)
	return fs
}

func i64(v int64) *int64   { return &v }
func str(v string) *string { return &v }
func boolp(v bool) *bool   { return &v }

// TestProbeRecorded probes each recorded server (testdata/probe/*, sources in
// testdata/probe/README.md) and checks the facts a user reads in `llmbench probe`:
// engine, version, served model, KV cache size. The whole answer is also compared
// with a golden file (want.json; -update rewrites it).
func TestProbeRecorded(t *testing.T) {
	cases := []struct {
		dir      string
		engine   string
		version  *string
		served   *string
		kv       *int64
		maxLen   *int64
		tokenize *string
		prefix   *bool
	}{
		{"vllm-0.26", VLLM, str("0.26.0"), str("Qwen/Qwen2.5-7B-Instruct"), i64(513968), i64(32768), str("/tokenize"), boolp(true)},
		{"vllm-0.10-dp2", VLLM, str("0.10.1.1"), str("meta-llama/Llama-3.1-8B-Instruct"), i64(2 * 29011 * 16), i64(131072), str("/tokenize"), boolp(true)},
		{"vllm-0.6", VLLM, str("0.6.3.post1"), str("mymodelname"), i64(11560 * 16), i64(8192), str("/tokenize"), boolp(false)},
		{"vllm-hybrid-devmode", VLLM, str("0.27.1"), str("deepseek-v4-flash"), i64(286458), i64(262144), str("/tokenize"), boolp(true)},
		{"sim", Sim, str("0.1.0-dev"), str("sim-llama-8b"), i64(65536), i64(65536), str("/tokenize"), boolp(true)},
		{"sglang-0.5", SGLang, str("0.5.10"), str("qwen/qwen2.5-0.5b-instruct"), i64(20480), i64(32768), str("/v1/tokenize"), boolp(true)},
		{"sglang-0.4-old", SGLang, str("0.4.1.post3"), str("meta-llama/Llama-3.1-8B-Instruct"), i64(2 * 412845), i64(16384), nil, boolp(false)},
		// One slot: its n_ctx is the cache. The prompt cache is on by default.
		{"llamacpp", LlamaCpp, str("b6000"), str("../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"), i64(8192), i64(8192), str("/tokenize"), boolp(true)},
		// 4 slots of 16,384: unified or split is not said, so the whole cache is unknown
		// (each request must fit one slot).
		{"llamacpp-np4", LlamaCpp, str("b7312"), str("../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"), nil, i64(16384), str("/tokenize"), boolp(true)},
		{"llamacpp-b10587", LlamaCpp, str("b10587"), str("/home/user/models/tinyllama-random-3M-F32.gguf"), nil, i64(2048), str("/tokenize"), boolp(true)},
		// Built without version metadata: "b0-unknown" is no version.
		{"llamacpp-b0-unknown", LlamaCpp, nil, str("/opt/models/Qwen3-8B-Q4_K_M.gguf"), i64(8192), i64(8192), str("/tokenize"), boolp(true)},
		{"ollama", Ollama, str("0.12.3"), str("qwen3:4b"), i64(32768), i64(32768), nil, nil},
		{"ollama-0.6", Ollama, str("0.6.5"), str("llama3.2:latest"), nil, i64(4096), nil, nil},
		{"tgi-3", TGI, str("3.3.6"), str("meta-llama/Llama-3.1-8B-Instruct"), i64(419008), i64(8192), str("/tokenize"), nil},
		{"tgi-2.0", TGI, str("2.0.4"), str("meta-llama/Llama-2-7b-chat-hf"), i64(16384), i64(4096), str("/tokenize"), nil},
		{"trtllm", TRTLLM, str("1.1.0"), str("TinyLlama/TinyLlama-1.1B-Chat-v1.0"), i64(8302 * 32), nil, nil, nil},
		{"lmstudio", LMStudio, nil, str("qwen2-vl-7b-instruct"), nil, nil, nil, nil},
		{"openai-generic", OpenAICompatible, nil, str("gpt-4o-mini"), nil, nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "probe", tc.dir)
			srv := newFixtureServer(t, dir)
			info, err := Probe(context.Background(), srv.Client(), srv.URL+"/v1/")
			if err != nil {
				t.Fatalf("Probe: %v", err)
			}
			got := struct {
				Engine   string
				Version  *string
				Served   *string
				KV       *int64
				MaxLen   *int64
				Tokenize *string
				Prefix   *bool
			}{info.Engine, info.Version, info.ServedModel, info.KVCacheTokens, info.MaxModelLen, info.Tokenize, info.PrefixCaching}
			want := struct {
				Engine   string
				Version  *string
				Served   *string
				KV       *int64
				MaxLen   *int64
				Tokenize *string
				Prefix   *bool
			}{tc.engine, tc.version, tc.served, tc.kv, tc.maxLen, tc.tokenize, tc.prefix}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("probe facts (-want +got):\n%s", d)
			}
			checkGolden(t, filepath.Join(dir, "want.json"), info)
		})
	}
}

// TestProbeLlamaServerSlots (issue 34 items 2 and 7): llama-server -c 8192 -np 4
// (b10587, answers written from its source: testdata/probe/README.md) has 4 slots of
// 2,048 tokens, its model's file type, and says nothing of its cache type; a build
// without version metadata has no version.
func TestProbeLlamaServerSlots(t *testing.T) {
	for _, tc := range []struct {
		dir          string
		slots, split *int64
		quant, build string
	}{
		{"llamacpp-b10587", i64(4), i64(8192), "F32", "b10587-0000000"},
		{"llamacpp-b0-unknown", i64(1), nil, "Q4_K_M", "b0-unknown"},
	} {
		srv := newFixtureServer(t, filepath.Join("testdata", "probe", tc.dir))
		info, err := Probe(context.Background(), srv.Client(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]any{tc.slots, tc.split, str(tc.quant), str(tc.build)}, []any{info.Slots, info.KVCacheTokensIfSplit, info.Quantization, info.Build}); d != "" {
			t.Errorf("%s: slots, split KV, quantization, build (-want +got):\n%s", tc.dir, d)
		}
		if info.KVCacheDtype != nil || !strings.Contains(strings.Join(info.Notes, " "), "does not report its KV cache type") {
			t.Errorf("%s: kv dtype %v, notes %q: want unknown, and a note saying why", tc.dir, info.KVCacheDtype, info.Notes)
		}
	}
}

func checkGolden(t *testing.T, path string, info *Info) {
	t.Helper()
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, path, append(b, '\n'))
}

func TestProbeSimPreset(t *testing.T) {
	srv := newFixtureServer(t, filepath.Join("testdata", "probe", "sim"))
	info, err := Probe(context.Background(), srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if info.Preset == nil || *info.Preset != "rtx3090-qwen32b" {
		t.Errorf("preset = %v, want rtx3090-qwen32b", info.Preset)
	}
}

func TestProbeUnreachable(t *testing.T) {
	// A port that was just free: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Probe(context.Background(), http.DefaultClient, "http://"+addr)
	if err == nil {
		t.Fatal("Probe of a closed port succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"cannot reach http://" + addr, "connection refused", "is the server running?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}

func TestProbeNotOpenAI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	_, err := Probe(context.Background(), srv.Client(), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "OpenAI") {
		t.Fatalf("err = %v, want one saying it is not an OpenAI-compatible server", err)
	}

	srv404 := httptest.NewServer(http.NotFoundHandler())
	defer srv404.Close()
	_, err = Probe(context.Background(), srv404.Client(), srv404.URL)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v, want one naming the 404", err)
	}
}

func TestProbeAPIKeyRequired(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"Unauthorized"}`))
	}))
	defer srv.Close()
	_, err := Probe(context.Background(), srv.Client(), srv.URL)
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v, want ErrUnauthorized naming the 401", err)
	}
}

func TestNormalizeBase(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000", ""},
		{"http://127.0.0.1:8000/", "http://127.0.0.1:8000", ""},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000", ""},
		{"http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000", ""},
		{"https://gw.example.com/llm/v1", "https://gw.example.com/llm", ""},
		{"localhost:11434", "http://localhost:11434", ""},
		{" http://h:1/v1 ", "http://h:1", ""},
		{"", "", "empty endpoint"},
		{"ftp://h/", "", "scheme"},
		{"http://", "", "no host"},
	}
	for _, tc := range cases {
		got, err := NormalizeBase(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NormalizeBase(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeBase(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func FuzzNormalizeBase(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8000/v1/", "localhost:1", "https://a/b/v1", "::", "http://[::1]:80/v1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeBase(s)
		if err != nil {
			return
		}
		// Normalising is idempotent and never leaves /v1 or a trailing slash.
		again, err := NormalizeBase(got)
		if err != nil || again != got {
			t.Fatalf("NormalizeBase(%q) = %q, then %q (%v)", s, got, again, err)
		}
		if strings.HasSuffix(got, "/") {
			t.Fatalf("NormalizeBase(%q) = %q ends with /", s, got)
		}
	})
}

func TestVersionAtLeast(t *testing.T) {
	cases := []struct {
		v    string
		want bool
	}{
		{"0.9.7", true}, {"0.12.3", true}, {"1.0", true}, {"v0.10.0-rc1", true},
		{"0.9.6", false}, {"0.6.5", false}, {"0.9", false}, {"dev", false}, {"", false},
	}
	for _, tc := range cases {
		if got := versionAtLeast(tc.v, 0, 9, 7); got != tc.want {
			t.Errorf("versionAtLeast(%q, 0.9.7) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
