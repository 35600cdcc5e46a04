package clientbench

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/zerostream"
)

// Both Go clients read a real zero-compute server over loopback and report what they
// read, with CPU time, in a short window. No speed is asserted.
func TestRunClient(t *testing.T) {
	srv, err := zerostream.Listen("127.0.0.1:0", zerostream.Config{Step: time.Millisecond, ContinuousUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, k := range []Kind{Floor, LLMBench} {
		res, err := RunClient(context.Background(), ClientOptions{Kind: k, BaseURL: srv.URL(), Streams: 4, MaxTokens: 100, Settle: 50 * time.Millisecond, Window: 300 * time.Millisecond})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if res.Tokens <= 0 || res.CPUS <= 0 || res.ServerToks <= 0 || res.Kind != k || res.Streams != 4 {
			t.Errorf("%s: %+v", k, res)
		}
		// Over 0.3 s the client's count and the server's may differ by what is in flight,
		// not by more than a few steps of 4 streams.
		if d := res.Tokens - res.ServerToks; d > 200 || d < -200 {
			t.Errorf("%s read %d tokens, the server wrote %d", k, res.Tokens, res.ServerToks)
		}
	}
	if _, err := RunClient(context.Background(), ClientOptions{Kind: "nope", BaseURL: srv.URL(), Streams: 1}); err == nil {
		t.Error("an unknown client kind ran")
	}
}

// The table's way: the parent waits for the streams, then opens the client's window
// through its control input, and counts what the server wrote; the client times it.
func TestParentTimedWindow(t *testing.T) {
	srv, err := zerostream.Listen("127.0.0.1:0", zerostream.Config{Step: time.Millisecond, ContinuousUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, k := range []Kind{Floor, LLMBench} {
		pr, pw := io.Pipe()
		o := TableOptions{Settle: 50 * time.Millisecond, Window: 300 * time.Millisecond}
		exited := make(chan struct{})
		type out struct {
			res Result
			err error
		}
		got := make(chan out, 1)
		go func() {
			res, err := RunClient(context.Background(), ClientOptions{Kind: k, BaseURL: srv.URL(), Streams: 4, MaxTokens: 100, Window: o.Window, Control: pr})
			close(exited)
			got <- out{res, err}
		}()
		server, err := driveWindow(context.Background(), o, srv.URL(), 4, pw, exited)
		if err != nil {
			t.Fatalf("%s: driving the window: %v", k, err)
		}
		r := <-got
		if r.err != nil {
			t.Fatalf("%s: %v", k, r.err)
		}
		if r.res.Tokens <= 0 || r.res.CPUS <= 0 || r.res.WindowS < 0.29 || server <= 0 {
			t.Errorf("%s: %+v, server wrote %d", k, r.res, server)
		}
		if d := r.res.Tokens - server; d > 200 || d < -200 {
			t.Errorf("%s read %d tokens, the server wrote %d", k, r.res.Tokens, server)
		}
	}
	// A client that stops before its window closes is reported, not waited for.
	exited := make(chan struct{})
	close(exited)
	_, pw := io.Pipe()
	if _, err := driveWindow(context.Background(), TableOptions{Window: time.Minute}, srv.URL(), 1_000_000, pw, exited); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("a client gone before its window: %v", err)
	}
}

func TestTableRatiosPairRepetitions(t *testing.T) {
	floor := []Result{{Rep: 0, Tokens: 100, CPUS: 1}, {Rep: 1, Tokens: 200, CPUS: 1}, {Rep: 2, Tokens: 300, CPUS: 1}}
	// Run 1 of llmbench failed: its ratios must pair rep 0 with rep 0 and rep 2 with rep 2.
	lb := []Result{{Rep: 0, Tokens: 50, CPUS: 1}, {Rep: 2, Tokens: 150, CPUS: 1}}
	got := ratios(lb, floor)
	if len(got) != 2 || got[0] != 0.5 || got[1] != 0.5 {
		t.Errorf("ratios %v, want [0.5 0.5]", got)
	}
	if s := spread([]float64{3, 1, 2}, "%.0f"); s != "2 (1–3)" {
		t.Errorf("spread %q", s)
	}
	if s := spread([]float64{1, 4}, "%.1f"); s != "2.5 (1.0–4.0)" {
		t.Errorf("spread %q", s)
	}
	tab := NewTable(TableOptions{Streams: []int{8}, Reps: 3, Step: 2 * time.Millisecond, MaxTokens: 10, Window: time.Second})
	tab.Runs[8] = map[Kind][]Result{Floor: floor, LLMBench: lb}
	var b bytes.Buffer
	tab.Write(&b)
	if !strings.Contains(b.String(), "| 8 | 200 (100–300) | 100 (50–150) | 0.50 (0.50–0.50) | 4000 |") {
		t.Errorf("table:\n%s", b.String())
	}
}
