package zerostream

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// The server's streams must read as a vLLM stream does through llmbench's own client:
// every token counted, the server's usage agreeing, finish_reason length, and the
// connection reused for the next request.
func TestStreamsReadByTheClient(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		continuous bool
		chat       bool
	}{
		{"chat final usage", Config{Step: time.Millisecond}, false, true},
		{"chat continuous usage", Config{Step: time.Millisecond}, true, true},
		{"completions forced usage", Config{ContinuousUsage: true}, false, false},
		{"chat back to back, 3 writers", Config{Writers: 3}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Listen("127.0.0.1:0", tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c := openai.NewClient(s.URL()+"/v1", "", 4)
			so := &openai.StreamOptions{IncludeUsage: true, ContinuousUsageStats: tc.continuous}
			for i, max := range []int{1, 7, 300} {
				var res *openai.StreamResult
				if tc.chat {
					res = c.StreamChat(context.Background(), &openai.ChatRequest{Model: "m", MaxTokens: openai.Ptr(max), RequestOptions: openai.RequestOptions{StreamOptions: so}}, nil)
				} else {
					res = c.StreamCompletion(context.Background(), &openai.CompletionRequest{Model: "m", Prompt: "x", MaxTokens: openai.Ptr(max), RequestOptions: openai.RequestOptions{StreamOptions: so}}, nil)
				}
				if res.Err != nil {
					t.Fatalf("request %d: %v", i, res.Err)
				}
				if res.Tokens != max || res.FinishReason != "length" {
					t.Errorf("request %d: %d tokens, finish %q; want %d, length", i, res.Tokens, res.FinishReason, max)
				}
				if res.Usage == nil || res.Usage.CompletionTokens != max || res.Usage.PromptTokens != 16 {
					t.Errorf("request %d: usage %+v, want %d completion tokens and 16 prompt tokens", i, res.Usage, max)
				}
				if wantChunkUsage := tc.continuous || tc.cfg.ContinuousUsage; res.ChunkUsage != wantChunkUsage {
					t.Errorf("request %d: ChunkUsage %v, want %v", i, res.ChunkUsage, wantChunkUsage)
				}
			}
			// The server counts a write after it returns, which may be after the client read it.
			st := waitIdle(t, s)
			if st.Tokens != 308 || st.Requests != 3 {
				t.Errorf("stats %+v, want 308 tokens in 3 requests", st)
			}
		})
	}
}

// Steps pace the streams: 50 tokens at 2 ms a step take about 100 ms, never less.
func TestStepsPaceTheStream(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Config{Step: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := openai.NewClient(s.URL()+"/v1", "", 1)
	res := c.StreamChat(context.Background(), &openai.ChatRequest{Model: "m", MaxTokens: openai.Ptr(50)}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if d := res.End.Sub(res.FirstToken); d < 49*2*time.Millisecond*9/10 {
		t.Errorf("50 tokens at 2 ms a step took %s from first to last", d)
	}
}

// A client that goes away mid-stream frees its slot.
func TestCancelledStreamIsDropped(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Config{Step: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := openai.NewClient(s.URL()+"/v1", "", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := c.StreamChat(ctx, &openai.ChatRequest{Model: "m", MaxTokens: openai.Ptr(100000)}, nil)
	if !res.Cancelled {
		t.Fatalf("want a cancelled stream, got %+v", res.Err)
	}
	waitIdle(t, s)
}

func waitIdle(t *testing.T, s *Server) Stats {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Active != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a stream is still active: %+v", s.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	return s.Stats()
}

func TestWriterCPUIsCounted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is read on Linux only")
	}
	s, err := Listen("127.0.0.1:0", Config{LockThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := openai.NewClient(s.URL()+"/v1", "", 1)
	for range 20 {
		if res := c.StreamChat(context.Background(), &openai.ChatRequest{Model: "m", MaxTokens: openai.Ptr(2000)}, nil); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if s.WriterCPU() <= 0 {
		t.Errorf("the writer wrote 40,000 tokens on a locked thread and counted %s of CPU", s.WriterCPU())
	}
}

// TestCloseWhileStreamsStart: Close returns however the streams starting at that moment
// fall. A stream handed to a writer that had already stopped used to wait for it for
// ever, and Close with it (seen once in CI: the calibration's test hung for 7 minutes).
func TestCloseWhileStreamsStart(t *testing.T) {
	for round := range 200 {
		s, err := Listen("127.0.0.1:0", Config{})
		if err != nil {
			t.Fatal(err)
		}
		c := openai.NewClient(s.URL()+"/v1", "", 8)
		ctx, cancel := context.WithCancel(context.Background())
		for range 8 {
			go c.StreamChat(ctx, &openai.ChatRequest{Model: "m", MaxTokens: openai.Ptr(100000)}, nil)
		}
		time.Sleep(time.Duration(round%7) * 100 * time.Microsecond)
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			cancel()
			t.Fatalf("round %d: Close did not return within 10 s", round)
		}
		cancel()
	}
}
