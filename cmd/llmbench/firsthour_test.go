package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubmitToASiteThatIsDown: the error names the site and the fix, not a socket call.
func TestSubmitToASiteThatIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = runCmd(t, "submit", filepath.Join("..", "..", "internal", "seed", "seed-run.json"), "--server", url, "--token", "llmb_x")
	if err == nil || !strings.Contains(err.Error(), "cannot reach the site at "+url) || !strings.Contains(err.Error(), "llmbench serve") {
		t.Fatalf("err = %v, want one saying the site cannot be reached and what to check", err)
	}
}

// TestServeListensOnThisMachineByDefault: docs/site.md says localhost; so does the flag.
func TestServeListensOnThisMachineByDefault(t *testing.T) {
	f := newServeCmd().Flags().Lookup("addr")
	if f == nil || !strings.HasPrefix(f.DefValue, "127.0.0.1:") {
		t.Fatalf("serve --addr defaults to %v, want this machine only (127.0.0.1)", f)
	}
}

// TestServerFromTheEnvironmentAndOtherToolsFlags: OPENAI_BASE_URL names the server for
// probe and run (as the OpenAI SDKs read it), and vLLM's --base-url, GuideLLM's
// --target and -o work as they do there. The tiny emulator's max_model_len (512) is
// what shows the server measured is that one, not the built-in default preset.
func TestServerFromTheEnvironmentAndOtherToolsFlags(t *testing.T) {
	base := startSim(t)
	t.Setenv("OPENAI_BASE_URL", base+"/v1")
	got, err := runCmd(t, "probe")
	if err != nil || !strings.Contains(got, "max model len:    512") {
		t.Fatalf("probe with $OPENAI_BASE_URL: %v\n%s", err, got)
	}
	out := filepath.Join(t.TempDir(), "x.json")
	for _, args := range [][]string{
		{"run", "--fit", "--dry-run"},
		{"run", "--fit", "--dry-run", "--base-url", base},
		{"run", "--fit", "--dry-run", "--target", base, "-o", out},
	} {
		got, err := runCmd(t, args...)
		if err != nil || !strings.Contains(got, "max_model_len 512") || strings.Contains(got, "built-in emulated engine") {
			t.Errorf("llmbench %s: %v\n%s", strings.Join(args, " "), err, got)
		}
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if got, err := runCmd(t, "run", "--quick", "--dry-run"); err != nil || !strings.Contains(got, "built-in emulated engine") {
		t.Errorf("run without an endpoint or $OPENAI_BASE_URL: %v\n%s", err, got)
	}
}
