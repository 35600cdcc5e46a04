package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// testServer mounts an emulator in httptest; both stop at the end of the test.
func testServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close() // ends open streams first, so ts.Close does not wait on them
		ts.Close()
	})
	return s, ts.URL
}

func tinyConfig(t testing.TB) Config {
	t.Helper()
	cfg, err := PresetConfig("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func postJSON(ctx context.Context, url string, body any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return http.DefaultClient.Do(req)
}

// streamEvent is one SSE data line and when it arrived.
type streamEvent struct {
	data string
	at   time.Time
}

// readStream posts a streaming request and returns every data event, [DONE] included.
// onEvent, if set, sees each event as it arrives and may stop the read by returning
// false.
func readStream(ctx context.Context, url string, body any, onEvent func(streamEvent) bool) ([]streamEvent, error) {
	resp, err := postJSON(ctx, url, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return nil, fmt.Errorf("content type %q, want text/event-stream", ct)
	}
	var events []streamEvent
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			return events, fmt.Errorf("unexpected SSE line %q", line)
		}
		ev := streamEvent{data: data, at: time.Now()}
		events = append(events, ev)
		if onEvent != nil && !onEvent(ev) {
			return events, nil
		}
	}
}

func decodeChunk(t testing.TB, data string) openai.Chunk {
	t.Helper()
	var c openai.Chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("decoding chunk %q: %v", data, err)
	}
	return c
}

// metrics scrapes /metrics with the Prometheus text parser and returns each sample's
// value by metric name (the first sample of each family).
func metrics(t testing.TB, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range families {
		if len(f.Metric) == 0 {
			continue
		}
		m := f.Metric[0]
		switch {
		case m.Gauge != nil:
			out[name] = m.Gauge.GetValue()
		case m.Counter != nil:
			out[name] = m.Counter.GetValue()
		case m.Untyped != nil:
			out[name] = m.Untyped.GetValue()
		}
	}
	return out
}

// words is a prompt of exactly n tokens, distinct per tag.
func words(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s%d", tag, i)
	}
	return b.String()
}

// eventually polls cond every few milliseconds until it holds or the deadline passes.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
