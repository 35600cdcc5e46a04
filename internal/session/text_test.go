package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func TestDryRunText(t *testing.T) {
	doc := &rundoc.Run{Config: rundoc.Config{Contexts: []int{0, 1024}, Concurrency: []int{1, 4}, PrefillContexts: []int{1024}, MaxOutputTokens: 128, DurationS: 10},
		Capacity: &rundoc.Capacity{KVCacheTokens: ptr(int64(2000)), MaxModelLen: ptr(int64(4096)), Source: "server"}, Notes: []string{"a note"}}
	bench.Plan(doc, doc.Capacity.Limits())
	got := DryRunText(doc, &engine.Info{Engine: "vllm", Version: ptr("0.11")}, "m")
	for _, want := range []string{
		"Dry run: the server was probed and the plan made; nothing was measured and no file written.\n",
		"Server: vllm 0.11, model m, KV cache 2,000 tokens (server), max_model_len 4,096\n",
		"Plan: contexts 0,1K × concurrency 1,4, prefill at 1K, 128 max output tokens\n",
		"of measurement windows (10s per cell), plus each row's prompt read\n",
		"Note: a note\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dry run lacks %q:\n%s", want, got)
		}
	}
	rate := &rundoc.Run{Config: rundoc.Config{DurationS: 5, Rate: &rundoc.RateConfig{InputLen: 16, OutputLen: 8, Search: &rundoc.RateSearch{Start: 2, MaxSteps: 6}}}}
	if got := DryRunText(rate, &engine.Info{Engine: "sim"}, "m"); !strings.Contains(got, "open loop at the rates --find-max-rate tries, 16 prompt and 8 output tokens") || !strings.Contains(got, "at most 0:30 of schedules (5s per rate)") || !strings.Contains(got, "(version unknown)") {
		t.Errorf("open-loop dry run:\n%s", got)
	}
}

func TestNextSteps(t *testing.T) {
	want := "\nSaved my run.json. Next:\n" +
		"  llmbench report 'my run.json' --format html -o 'my run.html'   # a page to open or share\n" +
		"  llmbench submit 'my run.json' --server URL --token TOKEN   # publish it on a site (docs/site.md)\n"
	if got := NextSteps("my run.json"); got != want {
		t.Errorf("next steps\n%s\nwant\n%s", got, want)
	}
}

func TestNothingMeasured(t *testing.T) {
	pending := &rundoc.Run{Decode: []rundoc.DecodeCell{{Status: rundoc.StatusPending}, {Status: rundoc.StatusOverCapacity}}}
	if !nothingMeasured(pending) {
		t.Error("pending and over-capacity cells: measured, want nothing")
	}
	failed := &rundoc.Run{Decode: []rundoc.DecodeCell{{Status: rundoc.StatusFailed}}}
	now := time.Now()
	if nothingMeasured(failed) || nothingMeasured(&rundoc.Run{FinishedAt: &now}) {
		t.Error("a failed cell, or a finished run: nothing measured")
	}
}

func TestExplainServerError(t *testing.T) {
	tls := ExplainServerError(errors.New("http: server gave HTTP response to HTTPS client"), "https://h:8000", false)
	if !strings.Contains(tls.Error(), "hint: the server speaks plain HTTP: use http://h:8000") {
		t.Errorf("HTTPS to an HTTP server: %v", tls)
	}
	key := ExplainServerError(fmt.Errorf("probing: %w", engine.ErrUnauthorized), "http://h", true)
	if !errors.Is(key, engine.ErrUnauthorized) || !strings.Contains(key.Error(), "was refused") {
		t.Errorf("a refused key: %v", key)
	}
	var note strings.Builder
	if base, err := ServerBase("http://h:8000/v1/chat/completions", &note); err != nil || base != "http://h:8000" || !strings.Contains(note.String(), "is a request route") {
		t.Errorf("a pasted request URL: %q %v, note %q", base, err, note.String())
	}
}

func TestResolveEndpoint(t *testing.T) {
	t.Setenv(BaseURLEnv, "http://env:8000")
	var note strings.Builder
	c := Config{}
	if err := c.ResolveEndpoint(&note); err != nil || c.Endpoint != "http://env:8000" || !strings.Contains(note.String(), "Using $OPENAI_BASE_URL") {
		t.Errorf("from the environment: %q %v %q", c.Endpoint, err, note.String())
	}
	resumed := Config{Resume: "x.json"}
	if err := resumed.ResolveEndpoint(&note); err != nil || resumed.Endpoint != "" {
		t.Errorf("a resumed run took %q from the environment (%v)", resumed.Endpoint, err)
	}
	two := Config{Endpoint: "http://a", Rate: OpenLoop{TargetURL: "http://b"}}
	if err := two.ResolveEndpoint(&note); err == nil || !strings.Contains(err.Error(), "name two servers") {
		t.Errorf("--endpoint and --target URL: %v", err)
	}
}
