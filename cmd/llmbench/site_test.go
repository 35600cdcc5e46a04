package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while a command writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func runSiteCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// TestServeSubmitRoundTrip is what a user does: create a token, start the site, submit
// the seed run (twice, and a broken one), and find it on the leaderboard and its page.
func TestServeSubmitRoundTrip(t *testing.T) {
	db := filepath.Join(t.TempDir(), "site.db")
	out, err := runSiteCmd(t, "serve", "token", "create", "--user", "@alice", "--org", "Acme Labs", "--db", db)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token := lines[len(lines)-1]
	if !strings.HasPrefix(token, "llmb_") {
		t.Fatalf("the last line of token create is %q, want the token", token)
	}

	ctx, cancel := context.WithCancel(context.Background())
	root := newRootCmd()
	var serveOut lockedBuffer
	root.SetOut(&serveOut)
	root.SetErr(&serveOut)
	root.SetArgs([]string{"serve", "--addr", "127.0.0.1:0", "--db", db})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("serve did not stop within 15 s of its context ending")
		}
	})
	addrRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	var base string
	for i := 0; i < 200 && base == ""; i++ {
		base = addrRE.FindString(serveOut.String())
		time.Sleep(25 * time.Millisecond)
	}
	if base == "" {
		t.Fatalf("serve did not say where it listens: %q", serveOut.String())
	}

	out, err = runSiteCmd(t, "submit", seedRun, "--server", base, "--token", token)
	if err != nil || !strings.Contains(out, "seed-rtx3090-qwen3.8-27b-int4 submitted: "+base+"/runs/seed-rtx3090-qwen3.8-27b-int4") {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	t.Setenv("LLMBENCH_TOKEN", token)
	out, err = runSiteCmd(t, "submit", seedRun, "--server", base)
	if err != nil || !strings.Contains(out, "already on the site") {
		t.Errorf("submitting again with LLMBENCH_TOKEN: %v\n%s", err, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeSiteFile(t, bad, `{"schema_version": 1, "id": "bad", "created_at": "2026-11-29T00:00:00Z", "tool": {"name": "x"}, "engine": {"name": "vllm"}, "model": {"served_name": "m"}, "config": {"contexts": [0], "concurrency": [1]}, "prefill": [], "decode": [{"context": 0, "concurrency": 1, "status": "valid", "total_tok_s": -3, "per_request_tok_s": 1, "ttft_ms": 1, "tbt_ms": 1}]}`)
	_, err = runSiteCmd(t, "submit", bad, "--server", base)
	if err == nil || !strings.Contains(err.Error(), "decode[0].total_tok_s") || !strings.Contains(err.Error(), "400") {
		t.Errorf("a bad document: err = %v; want the server's 400 naming decode[0].total_tok_s", err)
	}
	_, err = runSiteCmd(t, "submit", seedRun, "--server", base, "--token", "llmb_wrong")
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong token: err = %v, want a 401", err)
	}

	for _, p := range []string{"/", "/runs", "/runs/seed-rtx3090-qwen3.8-27b-int4", "/hardware/RTX%203090", "/models/RedHatAI%2FQwen3.8-27B-INT4", "/?lang=ja"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Qwen3.8-27B-INT4") || !strings.Contains(string(body), "48.2") {
			t.Errorf("GET %s: %d; want the seed run with its 48.2 tok/s", p, resp.StatusCode)
		}
	}

	// The operator revokes the token while the site runs: it can no longer submit, and
	// the list no longer shows it.
	out, err = runSiteCmd(t, "serve", "token", "list", "--db", db)
	if err != nil || !strings.Contains(out, "@alice") || strings.Contains(out, token) {
		t.Fatalf("token list: %v\n%s", err, out)
	}
	if out, err := runSiteCmd(t, "serve", "token", "revoke", token, "--db", db); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("token revoke: %v\n%s", err, out)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	seedDoc, err := os.ReadFile(seedRun)
	if err != nil {
		t.Fatal(err)
	}
	writeSiteFile(t, other, strings.Replace(string(seedDoc), `"seed-rtx3090-qwen3.8-27b-int4"`, `"after-revoke"`, 1))
	if _, err := runSiteCmd(t, "submit", other, "--server", base, "--token", token); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("submitting with a revoked token: err = %v, want a 401", err)
	}
	if out, err := runSiteCmd(t, "serve", "token", "list", "--db", db); err != nil || strings.Contains(out, "@alice") {
		t.Errorf("token list after revoking: %v\n%s", err, out)
	}
}

func writeSiteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
