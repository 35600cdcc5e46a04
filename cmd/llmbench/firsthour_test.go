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
