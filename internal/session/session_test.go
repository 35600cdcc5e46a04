package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func ptr[T any](v T) *T { return &v }

func TestFillTitle(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  rundoc.Run
		want string
	}{
		{"one GPU, as the seed page", rundoc.Run{Hardware: rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "RTX 3090", VRAMBytes: 24 << 30, Count: 1}}}}, "m on RTX 3090 24GB"},
		{"several", rundoc.Run{Hardware: rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "H100", VRAMBytes: 80 << 30, Count: 8}}}}, "m on 8× H100 80GB"},
		{"emulated", rundoc.Run{Status: rundoc.RunEmulated, Engine: rundoc.Engine{Preset: "tiny"}}, "m on llmbench-sim (tiny)"},
		{"unknown", rundoc.Run{}, "m on an unknown GPU"},
		// Issue 34 item 7: a machine without a GPU (llama-server, Ollama on CPU).
		{"CPU", rundoc.Run{Hardware: rundoc.Hardware{Type: "cpu", CPU: &rundoc.CPU{Model: "AMD EPYC 7B13", Cores: 2}}}, "m on CPU (AMD EPYC 7B13)"},
		{"a title given stays", rundoc.Run{Title: "mine"}, "mine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			doc.Model.ServedName = "m"
			FillTitle(&doc)
			if doc.Title != tc.want {
				t.Errorf("title %q, want %q", doc.Title, tc.want)
			}
		})
	}
}

func TestDefaultOutName(t *testing.T) {
	at := time.Date(2026, 12, 3, 13, 4, 5, 0, time.UTC)
	for model, want := range map[string]string{
		"Qwen/Qwen3-32B-AWQ": "Qwen3-32B-AWQ-20261203-130405.json",
		"qwen3:32b-q4_K_M":   "qwen3-32b-q4_K_M-20261203-130405.json",
		"../../etc/passwd":   "passwd-20261203-130405.json",
		"日本語モデル":             "run-20261203-130405.json",
		"":                   "run-20261203-130405.json",
	} {
		if got := DefaultOutName(model, at); got != want {
			t.Errorf("DefaultOutName(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestFillFromProbe(t *testing.T) {
	info := &engine.Info{Engine: engine.VLLM, Version: ptr("0.11.0"), ModelID: ptr("Qwen/Qwen3-32B")}
	doc := &rundoc.Run{Status: rundoc.RunMeasured}
	FillFromProbe(doc, info, "qwen", false, "http://gpu:8000")
	if doc.Engine.Name != "vllm" || doc.Engine.Version != "0.11.0" || doc.Model.ServedName != "qwen" || doc.Config.Endpoint != "http://gpu:8000" || doc.Status != rundoc.RunMeasured {
		t.Errorf("a real server: engine %+v, served %q, endpoint %q, status %s", doc.Engine, doc.Model.ServedName, doc.Config.Endpoint, doc.Status)
	}
	sim := &rundoc.Run{Status: rundoc.RunMeasured}
	FillFromProbe(sim, &engine.Info{Engine: engine.Sim}, "tiny", true, "http://127.0.0.1:1")
	if sim.Status != rundoc.RunEmulated || sim.Hardware.Type != "emulated" || sim.Config.Endpoint != "" {
		t.Errorf("the emulator: status %s, hardware type %q, endpoint %q; want emulated, no endpoint", sim.Status, sim.Hardware.Type, sim.Config.Endpoint)
	}
}

// TestFillFromProbePathNamedModel (issue 34 item 6): llama-server without -a names
// its model after its file's path; the document's identity records the base name,
// with a note, and no path (model.served_name, model.id, the title).
func TestFillFromProbePathNamedModel(t *testing.T) {
	path := "/home/user/models/tinyllama-random-3M-F32.gguf"
	info := &engine.Info{Engine: engine.LlamaCpp, ServedModel: ptr(path), ModelID: ptr(path)}
	doc := &rundoc.Run{Status: rundoc.RunMeasured, Hardware: rundoc.Hardware{Type: "cpu"}}
	FillFromProbe(doc, info, path, false, "http://127.0.0.1:8080")
	FillTitle(doc)
	for field, v := range map[string]string{"served_name": doc.Model.ServedName, "id": doc.Model.ID, "title": doc.Title} {
		if strings.Contains(v, "/home") || !strings.Contains(v, "tinyllama-random-3M-F32.gguf") {
			t.Errorf("model %s %q: want the file's name and no path", field, v)
		}
	}
	if doc.Title != "tinyllama-random-3M-F32.gguf on CPU" {
		t.Errorf("title %q", doc.Title)
	}
	if len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "no path") || strings.Contains(doc.Notes[0], "/home") {
		t.Errorf("notes %q: want one saying the path was left out, without it", doc.Notes)
	}
}

func TestTokenizeRoute(t *testing.T) {
	if r := TokenizeRoute(&engine.Info{Engine: engine.VLLM}, "http://h"); r.URL != "" {
		t.Errorf("no tokenize route found: %+v, want none", r)
	}
	r := TokenizeRoute(&engine.Info{Engine: engine.VLLM, Tokenize: ptr("/tokenize")}, "http://h")
	if r.URL != "http://h/tokenize" || r.Style != "vllm" || !r.TokenIDPrompts {
		t.Errorf("vLLM: %+v, want its route, style and token-id prompts", r)
	}
	r = TokenizeRoute(&engine.Info{Engine: engine.LlamaCpp, Tokenize: ptr("/tokenize"), TokenIDPrompts: ptr(false)}, "http://h")
	if r.Style != "llamacpp" || r.TokenIDPrompts {
		t.Errorf("llama.cpp: %+v", r)
	}
}

func TestPlanToFit(t *testing.T) {
	newDoc := func() *rundoc.Run {
		return &rundoc.Run{Config: rundoc.Config{Contexts: []int{0, 16384, 32768, 57344}, Concurrency: []int{1, 2}, PrefillContexts: []int{8192}, MaxOutputTokens: 4096, DurationS: 30}}
	}
	kv, maxLen := ptr(int64(200000)), ptr(int64(8192))
	limits := rundoc.Limits{KVCacheTokens: kv, MaxModelLen: maxLen}
	err := PlanToFit(newDoc(), limits, false, io0())
	if err == nil || !strings.Contains(err.Error(), "does not fit this server (max_model_len 8192, KV cache 200000 tokens)") || !strings.Contains(err.Error(), "--fit") {
		t.Fatalf("a plan mostly past max_model_len: %v, want refused with the flags that fit", err)
	}
	doc := newDoc()
	var note bytes.Buffer
	if err := PlanToFit(doc, limits, true, &note); err != nil {
		t.Fatal(err)
	}
	if len(doc.Notes) != 1 || !strings.Contains(note.String(), "--fit shrank the plan") {
		t.Errorf("--fit: notes %q, printed %q; want the shrink said in both", doc.Notes, note.String())
	}
	if pf := bench.CheckPlan(doc); pf.TooSmall() {
		t.Errorf("the fitted plan is still too small: %+v", pf)
	}
	if err := PlanToFit(newDoc(), rundoc.Limits{KVCacheTokens: kv}, false, io0()); err != nil {
		t.Errorf("no max_model_len known: %v, want the plan as it is", err)
	}
}

func io0() *bytes.Buffer { return &bytes.Buffer{} }

func TestNotePlanLimits(t *testing.T) {
	rate := func(in, out int, dist string) *rundoc.Run {
		return &rundoc.Run{Config: rundoc.Config{Rate: &rundoc.RateConfig{InputLen: in, OutputLen: out, LenDist: dist}}}
	}
	if err := NotePlanLimits(rate(8000, 500, "fixed"), ptr(int64(8192))); err == nil || !strings.Contains(err.Error(), "exceeds the server's max_model_len of 8192") {
		t.Errorf("every request too long: %v, want refused", err)
	}
	doc := rate(6000, 500, "uniform:0.5")
	if err := NotePlanLimits(doc, ptr(int64(8192))); err != nil || len(doc.Notes) != 1 {
		t.Errorf("some requests too long: err %v, notes %q; want one note", err, doc.Notes)
	}
	doc = rate(1000, 100, "fixed")
	if err := NotePlanLimits(doc, ptr(int64(8192))); err != nil || len(doc.Notes) != 0 {
		t.Errorf("all fit: err %v, notes %q", err, doc.Notes)
	}
}

func TestSameServer(t *testing.T) {
	doc := &rundoc.Run{Engine: rundoc.Engine{Name: "vllm", Version: "0.11.0", KVCacheTokens: ptr(int64(5000))}, Model: rundoc.Model{ServedName: "qwen", ID: "Qwen/Qwen3-32B"},
		Config: rundoc.Config{Endpoint: "http://a:8000"}}
	same := &engine.Info{Engine: "vllm", Version: ptr("0.11.0"), ModelID: ptr("Qwen/Qwen3-32B"), KVCacheTokens: ptr(int64(5000)), Models: []string{"qwen"}}
	if err := SameServer(doc, same, "http://a:8000"); err != nil {
		t.Errorf("the same server: %v", err)
	}
	other := &engine.Info{Engine: "sglang", Version: ptr("0.5"), KVCacheTokens: ptr(int64(9000)), Models: []string{"llama"}}
	err := SameServer(doc, other, "http://b:30000")
	for _, want := range []string{"engine vllm, now sglang", "version 0.11.0, now 0.5", "KV cache 5000 tokens, now 9000", "model qwen, now llama", "(http://a:8000)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("another server: %v, want it to say %q", err, want)
		}
	}
	if err := SameServer(doc, &engine.Info{Engine: "vllm"}, "http://a:8000"); err != nil {
		t.Errorf("a server that says less: %v, want no difference claimed", err)
	}
}

func TestRecordEndpoint(t *testing.T) {
	doc := &rundoc.Run{Config: rundoc.Config{Endpoint: "http://a"}}
	RecordEndpoint(doc, "http://a")
	if len(doc.Config.Endpoints) != 0 {
		t.Errorf("the same endpoint: endpoints %v, want none listed", doc.Config.Endpoints)
	}
	RecordEndpoint(doc, "http://b")
	RecordEndpoint(doc, "http://b")
	if got := strings.Join(doc.Config.Endpoints, " "); got != "http://a http://b" {
		t.Errorf("endpoints %q, want both once", got)
	}
	if got := EndpointOf(&rundoc.Run{}); got != "the built-in emulator" {
		t.Errorf("EndpointOf(no endpoint) = %q", got)
	}
}

func TestLocal(t *testing.T) {
	for base, want := range map[string]int{"http://127.0.0.1:8000": 8000, "http://localhost/v1": 80, "https://[::1]": 443, "http://gpu-box:8000": 0, "::bad": 0} {
		if got := ServerPort(base); got != want || IsLocal(base) != (want != 0) {
			t.Errorf("%s: port %d, local %v; want %d", base, got, IsLocal(base), want)
		}
	}
}

func TestDescribeHardware(t *testing.T) {
	ctx := context.Background()
	remote := &rundoc.Run{}
	if err := DescribeHardware(ctx, remote, "", "http://gpu-box:8000", false); err != nil || len(remote.Notes) != 1 || !strings.Contains(remote.Notes[0], "remote") {
		t.Errorf("a remote server: err %v, notes %q; want a note that it was not detected", err, remote.Notes)
	}
	path := filepath.Join(t.TempDir(), "hw.yaml")
	if err := os.WriteFile(path, []byte("gpus:\n  - name: RTX 4090\n    vram_bytes: 25769803776\n    count: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	described := &rundoc.Run{}
	if err := DescribeHardware(ctx, described, path, "http://gpu-box:8000", false); err != nil || len(described.Hardware.GPUs) != 1 || described.Hardware.GPUs[0].Count != 2 {
		t.Errorf("--hardware FILE: err %v, hardware %+v", err, described.Hardware)
	}
	emulated := &rundoc.Run{}
	if err := DescribeHardware(ctx, emulated, "", "http://127.0.0.1:1", true); err != nil || len(emulated.Notes) != 0 || len(emulated.Hardware.GPUs) != 0 {
		t.Errorf("the emulator: err %v, notes %q, hardware %+v; want nothing detected", err, emulated.Notes, emulated.Hardware)
	}
}

// TestResumePathNamedModel: a resumed document records a path-named model by its
// file's name; the server still lists the path, and the run names the model as the
// server does.
func TestResumePathNamedModel(t *testing.T) {
	path := "/home/user/models/tiny.gguf"
	info := &engine.Info{Engine: engine.LlamaCpp, Models: []string{path}, ModelID: ptr(path)}
	doc := &rundoc.Run{Engine: rundoc.Engine{Name: engine.LlamaCpp}, Model: rundoc.Model{ServedName: "tiny.gguf", ID: "tiny.gguf"}}
	if err := SameServer(doc, info, "http://127.0.0.1:8080"); err != nil {
		t.Errorf("the same server: %v", err)
	}
	c := &Config{Model: doc.Model.ServedName}
	if err := checkModel(c, info, "http://127.0.0.1:8080"); err != nil || c.Model != path {
		t.Errorf("model %q, %v; want the server's %q", c.Model, err, path)
	}
}
