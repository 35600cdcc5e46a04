package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkIngest measures the client's ingest ceiling: how many streamed tokens per
// second it can take in over loopback from many concurrent streams, with the server
// (in this process, sharing the CPUs) writing pre-rendered chunks as fast as it can.
// The figure bounds what a run on this machine can honestly report.
func BenchmarkIngest(b *testing.B) {
	for _, streams := range []int{128, 1024} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) { benchIngest(b, streams) })
	}
}

func benchIngest(b *testing.B, streams int) {
	const tokensPerStream = 400
	chunk := []byte(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" token"},"finish_reason":null}]}` + "\n\n")
	last := []byte(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" end"},"finish_reason":"length"}]}` + "\n\ndata: [DONE]\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i := 0; i < tokensPerStream-1; i++ {
			w.Write(chunk)
			if i%4 == 0 {
				fl.Flush() // a flush every few tokens: the server is not the bottleneck
			}
		}
		w.Write(last)
	}))
	defer srv.Close()
	c := NewClient(srv.URL+"/v1", "", streams)
	var tokens atomic.Int64
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for s := 0; s < streams; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
				if res.Err != nil {
					b.Error(res.Err)
				}
				tokens.Add(int64(res.Tokens))
			}()
		}
		wg.Wait()
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(tokens.Load())/elapsed.Seconds(), "tokens/s")
}
