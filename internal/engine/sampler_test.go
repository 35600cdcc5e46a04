package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func f64(v float64) *float64 { return &v }

// TestReadings checks what one scrape of each engine's live state reads.
func TestReadings(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		parse func([]byte) (reading, error)
		want  reading
	}{
		{"vllm V1 DP=2: sums running, averages KV use", "probe/vllm-0.10-dp2/metrics.txt", parsePromReading,
			reading{running: f64(8), waiting: f64(1), kvUsage: f64(0.30000000000000004), preemptions: f64(2)}},
		{"vllm V0 names", "probe/vllm-0.6/metrics.txt", parsePromReading,
			reading{running: f64(3), waiting: f64(2), kvUsage: f64(0), preemptions: f64(0), generation: f64(155722)}},
		{"vllm 0.26 prefix cache counters", "probe/vllm-0.26/metrics.txt", parsePromReading,
			reading{running: f64(0), waiting: f64(0), kvUsage: f64(0), preemptions: f64(0), prefixQueries: f64(80), prefixHits: f64(0), generation: f64(500)}},
		{"sglang DP=2 sums ranks, averages token usage", "probe/sglang-0.4-old/metrics.txt", parsePromReading,
			reading{running: f64(7), waiting: f64(2), kvUsage: f64(0.4), preemptions: f64(1), prefixQueries: f64(120000), prefixHits: f64(30000)}},
		{"llama.cpp --metrics", "probe/llamacpp/metrics.txt", parsePromReading,
			reading{running: f64(1), waiting: f64(2)}},
		{"llama.cpp /slots", "probe/llamacpp-np4/slots.json", parseLlamaSlots,
			reading{running: f64(2)}},
		{"sglang /v1/loads", "probe/sglang-0.5/v1_loads.json", parseSGLangLoads,
			reading{running: f64(1), waiting: f64(0), kvUsage: f64(0.147)}},
		{"trtllm iteration stats", "probe/trtllm/metrics.json", parseTRTLLMStats,
			reading{running: f64(1), waiting: f64(0), kvUsage: f64(3.0 / 8302)}},
		{"tgi", "probe/tgi-3/metrics.txt", parsePromReading,
			reading{running: f64(0), waiting: f64(0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(reading{})); d != "" {
				t.Errorf("reading (-want +got):\n%s", d)
			}
		})
	}
}

// TestSamplerWindow runs a sampler against a server whose gauges and counters move
// between scrapes and checks the cell summary: min/max of the gauges over what was
// served and the counter's increase over the window.
func TestSamplerWindow(t *testing.T) {
	pages := []struct{ running, waiting, kv, preempt, queries, hits float64 }{
		{0, 0, 0.00, 10, 1000, 100},
		{4, 2, 0.50, 10, 2000, 600},
		{8, 5, 0.95, 13, 3000, 900},
		{6, 0, 0.70, 14, 4000, 1100},
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(hits.Add(1)) - 1
		if i >= len(pages) {
			i = len(pages) - 1 // the last page repeats: the server is idle again
		}
		p := pages[i]
		fmt.Fprintf(w, `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} %g
vllm:num_requests_waiting{engine="0",model_name="m"} %g
vllm:kv_cache_usage_perc{engine="0",model_name="m"} %g
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="m"} %g
vllm:prefix_cache_queries_total{engine="0",model_name="m"} %g
vllm:prefix_cache_hits_total{engine="0",model_name="m"} %g
`, p.running, p.waiting, p.kv, p.preempt, p.queries, p.hits)
	}))
	defer srv.Close()

	info := &Info{Engine: VLLM, Metrics: str("/metrics"), MetricsFormat: "prometheus"}
	s := NewSampler(srv.Client(), srv.URL, info)
	if s == nil {
		t.Fatal("NewSampler returned nil for a server with /metrics")
	}
	s.Start(context.Background(), time.Millisecond)
	// Wait (bounded) until every page has been served at least once.
	for i := 0; i < 5000 && hits.Load() < int64(len(pages)); i++ {
		time.Sleep(time.Millisecond)
	}
	m := s.Stop()
	if m == nil {
		t.Fatal("Stop returned nil")
	}
	if m.Samples < len(pages) {
		t.Errorf("samples = %d, want at least %d", m.Samples, len(pages))
	}
	if m.Running == nil || m.Running.Min != 0 || m.Running.Max != 8 || m.Running.Mean <= 0 || m.Running.Mean >= 8 {
		t.Errorf("running = %+v, want min 0, max 8, mean between", m.Running)
	}
	if m.Waiting == nil || m.Waiting.Max != 5 {
		t.Errorf("waiting = %+v, want max 5", m.Waiting)
	}
	if m.KVUsage == nil || m.KVUsage.Max != 0.95 {
		t.Errorf("kv usage = %+v, want max 0.95", m.KVUsage)
	}
	if m.Preemptions == nil || *m.Preemptions != 4 {
		t.Errorf("preemptions = %v, want 4 (14-10)", m.Preemptions)
	}
	q, h, ok := s.PrefixCache()
	if !ok || q != 3000 || h != 1000 {
		t.Errorf("prefix cache = %v queries, %v hits (%v), want 3000 and 1000", q, h, ok)
	}
	// Stop is idempotent.
	if again := s.Stop(); again.Samples != m.Samples {
		t.Errorf("second Stop gave %d samples, first %d", again.Samples, m.Samples)
	}
}

func TestNilSampler(t *testing.T) {
	if s := NewSampler(http.DefaultClient, "http://127.0.0.1:1", &Info{Engine: Ollama}); s != nil {
		t.Fatalf("NewSampler for Ollama (no metrics) = %v, want nil", s)
	}
	var s *Sampler
	s.Start(context.Background(), time.Second)
	if m := s.Stop(); m != nil {
		t.Errorf("nil sampler Stop = %+v, want nil", m)
	}
	if _, _, ok := s.PrefixCache(); ok {
		t.Error("nil sampler reports prefix cache figures")
	}
}

func TestSamplerCounterReset(t *testing.T) {
	a, b := 10.0, 3.0
	if _, ok := delta(&a, &b); ok {
		t.Error("a counter that went down gave a delta")
	}
}

func FuzzParsePromReading(f *testing.F) {
	for _, p := range []string{"probe/vllm-0.6/metrics.txt", "probe/vllm-0.26/metrics.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("vllm:num_requests_running NaN\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parsePromReading(b) // must not panic
		if fams, err := parseMetrics(b); err == nil {
			var info Info
			applyVLLMCacheConfig(&info, fams)
		}
	})
}

// TestSamplerOnRecordedServers probes each recorded server and takes one reading
// through the sampler it gets: engines with live metrics give running requests,
// the others get no sampler at all.
func TestSamplerOnRecordedServers(t *testing.T) {
	cases := []struct {
		dir         string
		wantRunning *float64 // nil: no sampler
	}{
		{"vllm-0.26", f64(0)},
		{"vllm-0.10-dp2", f64(8)},
		{"sim", f64(0)},
		{"sglang-0.5", f64(1)},
		{"sglang-0.4-old", f64(7)},
		{"llamacpp", f64(1)},
		{"llamacpp-np4", f64(2)},
		{"tgi-3", f64(0)},
		{"trtllm", f64(1)},
		{"tgi-2.0", nil},
		{"ollama", nil},
		{"lmstudio", nil},
		{"openai-generic", nil},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			srv := newFixtureServer(t, filepath.Join("testdata", "probe", tc.dir))
			info, err := Probe(context.Background(), srv.Client(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			s := NewSampler(srv.Client(), srv.URL, info)
			if tc.wantRunning == nil {
				if s != nil {
					t.Fatalf("got a sampler for %s, which exposes no live metrics", tc.dir)
				}
				return
			}
			if s == nil {
				t.Fatal("no sampler")
			}
			m := s.Stop() // one closing reading, no Start needed
			if m == nil || m.Running == nil {
				t.Fatalf("summary = %+v, want running requests", m)
			}
			if m.Running.Max != *tc.wantRunning {
				t.Errorf("running = %v, want %v", m.Running.Max, *tc.wantRunning)
			}
		})
	}
}

// TestShardsAndParts: tensor-parallel ranks of one replica report the same figure
// (taken once), while DP ranks and cache sources are parts of the total (added).
func TestShardsAndParts(t *testing.T) {
	page := []byte(`sglang:num_running_reqs{model_name="m",tp_rank="0",dp_rank="0"} 4
sglang:num_running_reqs{model_name="m",tp_rank="1",dp_rank="0"} 4
sglang:num_running_reqs{model_name="m",tp_rank="0",dp_rank="1"} 3
sglang:num_running_reqs{model_name="m",tp_rank="1",dp_rank="1"} 3
sglang:cached_tokens_total{model_name="m",cache_source="device"} 100
sglang:cached_tokens_total{model_name="m",cache_source="host"} 20
sglang:cached_tokens_total{model_name="m",cache_source="storage"} 5
`)
	r, err := parsePromReading(page)
	if err != nil {
		t.Fatal(err)
	}
	if r.running == nil || *r.running != 7 {
		t.Errorf("running = %v, want 7 (4 on DP 0, 3 on DP 1, each reported by 2 TP ranks)", r.running)
	}
	if r.prefixHits == nil || *r.prefixHits != 125 {
		t.Errorf("cached tokens = %v, want 125 (device + host + storage)", r.prefixHits)
	}
}
