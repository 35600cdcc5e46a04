package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/sim"
)

func runProbeCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"probe"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// TestProbeAgainstTheEmulator probes llmbench's own emulator, as a user would, and
// checks that the JSON has every key of the issue (null where unknown) and the facts
// of the preset; the text form says "unknown" for what the server does not tell.
func TestProbeAgainstTheEmulator(t *testing.T) {
	base, shutdown, err := sim.StartLocal(context.Background(), "tiny", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown(ctx)
	}()

	out, err := runProbeCmd(t, "--endpoint", base+"/v1/", "--format", "json")
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("probe --format json is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"engine", "version", "served_model", "model_id", "max_model_len", "kv_cache_tokens",
		"kv_cache_dtype", "prefix_caching", "max_num_seqs", "quantization", "tokenize"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("key %q missing from probe's JSON", k)
		}
	}
	var info engine.Info
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	if info.Engine != engine.Sim || info.Preset == nil || *info.Preset != "tiny" {
		t.Errorf("engine %q preset %v, want llmbench-sim tiny", info.Engine, info.Preset)
	}
	// The tiny preset: KV 1024 tokens, max_model_len 512 (llmbench sim --help).
	if info.KVCacheTokens == nil || *info.KVCacheTokens != 1024 || info.MaxModelLen == nil || *info.MaxModelLen != 512 {
		t.Errorf("kv_cache_tokens %v, max_model_len %v, want 1024 and 512", info.KVCacheTokens, info.MaxModelLen)
	}
	if info.Tokenize == nil || *info.Tokenize != "/tokenize" {
		t.Errorf("tokenize = %v, want /tokenize", info.Tokenize)
	}

	text, err := runProbeCmd(t, "--endpoint", base)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"engine:           llmbench-sim", "KV cache tokens:  1024", "quantization:     unknown"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	// docs/probe.md shows this output: it must be what probe prints (but the port).
	if doc, want := probeDocSample(t), strings.Replace(text, base, "http://127.0.0.1:18931", 1); doc != want {
		t.Errorf("docs/probe.md's sample output is stale; probe prints:\n%s\nthe doc shows:\n%s", want, doc)
	}

	// The emulator's /metrics gives a live sampler.
	s := engine.NewSampler(http.DefaultClient, base, &info)
	if m := s.Stop(); m == nil || m.Running == nil || m.KVUsage == nil {
		t.Errorf("sampler summary on the emulator = %+v, want running and KV usage", m)
	}
}

func TestProbeCmdErrors(t *testing.T) {
	if _, err := runProbeCmd(t); err == nil || !strings.Contains(err.Error(), "--endpoint") {
		t.Errorf("no --endpoint: err = %v", err)
	}
	if _, err := runProbeCmd(t, "--endpoint", "http://127.0.0.1:1", "--format", "yaml"); err == nil || !strings.Contains(err.Error(), "--format") {
		t.Errorf("bad --format: err = %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if _, err := runProbeCmd(t, "--endpoint", "http://"+addr); err == nil || !strings.Contains(err.Error(), "is the server running?") {
		t.Errorf("closed port: err = %v", err)
	}
}

func TestHWCmdHardwareFile(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/hw.yaml"
	if err := writeProbeTestFile(p, "gpus:\n  - name: NVIDIA GeForce RTX 3090\n    count: 2\n    vram_bytes: 25769803776\n"); err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"hw", "--hardware", p})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2× NVIDIA GeForce RTX 3090, 24.0 GiB") {
		t.Errorf("hw text output:\n%s", out.String())
	}
}

func writeProbeTestFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// probeDocSample is the code block after "Text output (here against `llmbench sim
// --preset tiny`)" in docs/probe.md.
func probeDocSample(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "probe.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "Text output (here against `llmbench sim --preset tiny`):\n\n```\n")
	block, _, closed := strings.Cut(after, "```\n")
	if !ok || !closed {
		t.Fatal("docs/probe.md has no sample output block against the tiny emulator")
	}
	return block
}
