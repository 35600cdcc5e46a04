package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// halfDone runs a small plan against cfg and marks its last cell pending again, as an
// interrupted run leaves it; it returns the document's path and the server.
func halfDone(t *testing.T, cfg replay.Config) (string, *replay.Server) {
	t.Helper()
	rs, err := replay.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	out := filepath.Join(t.TempDir(), "run.json")
	if got, err := runCmd(t, "run", "--endpoint", rs.URL, "--out", out, "--no-progress", "--format", "none", "--settle", "200ms", "--no-calibrate",
		"--contexts", "0", "--concurrency", "1,2", "--prefill", "", "--duration", "1s", "--max-output", "64"); err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	last := &doc.Decode[len(doc.Decode)-1]
	*last = rundoc.DecodeCell{Context: last.Context, Concurrency: last.Concurrency, Status: rundoc.StatusInterrupted, Reason: "the run was stopped during this cell"}
	doc.FinishedAt = nil
	if err := rundoc.WriteFile(out, doc); err != nil {
		t.Fatal(err)
	}
	return out, rs
}

func decodeRequests(rs *replay.Server) int {
	n := 0
	for _, r := range rs.Log() {
		if r.MaxTokens == 64 {
			n++
		}
	}
	return n
}

// TestResumeSameServer (issue 22): --resume measures what is left on the recorded
// endpoint, with the recorded model and API, never on the built-in emulator.
func TestResumeSameServer(t *testing.T) {
	t.Parallel()
	out, rs := halfDone(t, with(vllm, func(c *replay.Config) {}))
	before := decodeRequests(rs)
	got, err := runCmd(t, "run", "--resume", out, "--no-progress", "--format", "none", "--settle", "200ms")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, got)
	}
	if strings.Contains(got, "emulated engine") {
		t.Errorf("resume started the emulator:\n%s", got)
	}
	if after := decodeRequests(rs); after <= before {
		t.Errorf("the recorded server got no decode request on resume (%d before, %d after)", before, after)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := doc.Decode[len(doc.Decode)-1]; !measured(&c) || doc.FinishedAt == nil {
		t.Errorf("resumed cell %s %q, finished %v", c.Status, c.Reason, doc.FinishedAt)
	}
	if doc.Config.Endpoint != rs.URL {
		t.Errorf("endpoint %v, want %s", doc.Config.Endpoint, rs.URL)
	}
}

// TestResumeOtherServer (issue 22): --resume with --endpoint naming another server is
// refused unless its probe shows the same engine, version, model and KV capacity;
// a server that matches is used and recorded beside the first.
func TestResumeOtherServer(t *testing.T) {
	t.Parallel()
	out, _ := halfDone(t, with(vllm, func(c *replay.Config) {}))
	// Another engine serving a model of the same name.
	other, err := replay.Start(replay.Config{Shape: "sglang", ChatOverhead: 3, Model: "Qwen/Qwen2.5-7B-Instruct"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	got, err := runCmd(t, "run", "--resume", out, "--endpoint", other.URL, "--no-progress", "--format", "none", "--settle", "200ms")
	if err == nil || !strings.Contains(err.Error(), "not the server") {
		t.Errorf("resume on another engine: %v; want it refused\n%s", err, got)
	}
	t.Logf("refused: %v", err)
	if n := decodeRequests(other); n != 0 {
		t.Errorf("the other server got %d decode requests", n)
	}
	twin, err := replay.Start(with(vllm, func(c *replay.Config) {}))
	if err != nil {
		t.Fatal(err)
	}
	defer twin.Close()
	if got, err := runCmd(t, "run", "--resume", out, "--endpoint", twin.URL, "--no-progress", "--format", "none", "--settle", "200ms"); err != nil {
		t.Fatalf("resume on an identical server: %v\n%s", err, got)
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Config.Endpoints) != 2 || doc.Config.Endpoints[1] != twin.URL {
		t.Errorf("endpoints %v, want the first server's and %s", doc.Config.Endpoints, twin.URL)
	}
}

// TestResumeNoRecordedEndpoint: a measured document without an endpoint (an older
// llmbench's) is not resumed on the built-in emulator.
func TestResumeNoRecordedEndpoint(t *testing.T) {
	t.Parallel()
	out, _ := halfDone(t, with(vllm, func(c *replay.Config) {}))
	doc, err := rundoc.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc.Config.Endpoint = ""
	if err := rundoc.WriteFile(out, doc); err != nil {
		t.Fatal(err)
	}
	got, err := runCmd(t, "run", "--resume", out, "--no-progress", "--format", "none")
	if err == nil || !strings.Contains(err.Error(), "records no endpoint") || strings.Contains(got, "emulated engine") {
		t.Errorf("resume of a document with no endpoint: %v\n%s", err, got)
	}
}
