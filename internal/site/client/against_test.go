package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/overlay/overlaytest"
)

// TestFetchAgainstRefusesWhatIsNotARun: --against checks what a site answers as it
// checks a submission — a broken, invalid or oversized answer is an error naming it,
// never a report laid over nonsense.
func TestFetchAgainstRefusesWhatIsNotARun(t *testing.T) {
	mine, _, _ := overlaytest.Pair()
	for _, c := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   string
	}{
		{"not JSON", func(w http.ResponseWriter) { w.Write([]byte("<html>hello</html>")) }, "not a valid run document"},
		{"invalid", func(w http.ResponseWriter) {
			w.Write([]byte(`{"schema_version": 1, "id": "x", "created_at": "2026-11-29T00:00:00Z", "tool": {"name": "x"}, "engine": {"name": "vllm"}, "model": {"served_name": "m"}, "config": {"contexts": [0], "concurrency": [1]}, "prefill": [], "decode": [{"context": 0, "concurrency": 1, "status": "valid", "total_tok_s": -3, "per_request_tok_s": 1, "ttft_ms": 1, "tbt_ms": 1}]}`))
		}, "decode[0].total_tok_s"},
		{"too large", func(w http.ResponseWriter) { w.Write([]byte(strings.Repeat(" ", maxFetchedRun+1))) }, "larger than any run document"},
		{"an API error", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error": "busy", "reason": "the site is busy"}`))
		}, "503: the site is busy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.answer(w) }))
			defer hs.Close()
			_, err := fetchAgainst(context.Background(), hs.Client(), hs.URL+"/runs/x", mine)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}
