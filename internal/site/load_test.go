package site_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// loadRoutes is the mixed-route load's mix (issue 24 item 16): the leaderboard in its
// first rankings, by another cell and filtered, the run list, run pages, the hardware,
// model and family lists and pages (with their charts), compare, the calculator and
// three APIs. Each client requests them in turn, from a different starting point.
var loadRoutes = []string{
	"/",
	"/?sort=peak",
	"/?gpu=RTX+4090&engine=vllm",
	"/?metric=ttft_ms&context=0&concurrency=8",
	"/runs",
	"/runs/bench-%06d",
	"/hardware",
	"/hardware/RTX%204090",
	"/hardware/H100",
	"/models",
	"/models/org3%2Fmodel-10-7B",
	"/models/RedHatAI%2FQwen3.8-27B-INT4",
	"/families/model10-7b",
	"/compare?id=bench-000100&id=bench-050100&id=bench-099999",
	"/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=awq",
	"/api/v1/leaderboard?metric=total_tok_s&context=32768&concurrency=1&gpu=H200",
	"/api/v1/runs?sort=peak&gpu=H100",
}

// BenchmarkLoad64Clients100k: 64 clients request loadRoutes at once for
// LLMBENCH_LOAD_SECONDS (default 30) against the seeded database, and report the
// requests per second and p50/p95 overall (as metrics) and per route (logged). Run it
// once: go test -run '^$' -bench Load64 -benchtime 1x -v ./internal/site/ (with
// LLMBENCH_BENCH_DB for PostgreSQL; LLMBENCH_LOAD_NO_PAGE_CACHE=1 turns the page
// cache off, to see what rendering costs). The load generator shares the machine.
func BenchmarkLoad64Clients100k(b *testing.B) {
	secs := 30
	if s, err := strconv.Atoi(os.Getenv("LLMBENCH_LOAD_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	clients := 64
	if s, err := strconv.Atoi(os.Getenv("LLMBENCH_LOAD_CLIENTS")); err == nil && s > 0 {
		clients = s
	}
	var pageTTL time.Duration // the site's default
	if os.Getenv("LLMBENCH_LOAD_NO_PAGE_CACHE") != "" {
		pageTTL = -1
	}
	hs := benchSite(b, pageTTL)
	tr := &http.Transport{MaxIdleConns: clients * 2, MaxIdleConnsPerHost: clients * 2, MaxConnsPerHost: 0}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// path is client c's i-th request of route.
	path := func(route string, c, i int) string {
		if route == "/runs/bench-%06d" {
			// Every client asks for other runs, spread over all of them, so that run
			// pages are mostly answers nobody asked for yet: the page cache's worst case.
			k := (i/len(loadRoutes))*clients + c
			return fmt.Sprintf(route, (k*7919)%benchRuns)
		}
		return route
	}
	get := func(p string) (int64, error) {
		resp, err := client.Get(hs.URL + p)
		if err != nil {
			return 0, err
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n == 0 {
			return n, fmt.Errorf("GET %s: %d (%d bytes)", p, resp.StatusCode, n)
		}
		return n, nil
	}
	for i, r := range loadRoutes { // warm up once, as a reader would have
		t0 := time.Now()
		n, err := get(path(r, clients, i))
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("first answer %7.1f ms %8d bytes  %s", float64(time.Since(t0).Microseconds())/1000, n, r)
	}
	type sample struct {
		route int
		d     time.Duration
	}
	var (
		mu      sync.Mutex
		samples []sample
		errs    []error
		wg      sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	deadline := start.Add(time.Duration(secs) * time.Second)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			var mine []sample
			for i := c; time.Now().Before(deadline); i++ {
				ri := i % len(loadRoutes)
				t0 := time.Now()
				_, err := get(path(loadRoutes[ri], c, i))
				d := time.Since(t0)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					continue
				}
				mine = append(mine, sample{ri, d})
			}
			mu.Lock()
			samples = append(samples, mine...)
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if len(errs) > 0 {
		b.Fatalf("%d requests failed, the first: %v", len(errs), errs[0])
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	q := func(ls []time.Duration, p float64) time.Duration { return ls[int(p*float64(len(ls)-1))] }
	per := make([][]time.Duration, len(loadRoutes))
	var all []time.Duration
	for _, s := range samples {
		per[s.route] = append(per[s.route], s.d)
		all = append(all, s.d)
	}
	for i, ls := range per {
		slices.Sort(ls)
		if len(ls) > 0 {
			b.Logf("%6d req  p50 %7.1f ms  p95 %7.1f ms  %s", len(ls), ms(q(ls, 0.5)), ms(q(ls, 0.95)), loadRoutes[i])
		}
	}
	slices.Sort(all)
	if len(all) == 0 {
		b.Fatal("no request completed")
	}
	rps := float64(len(all)) / elapsed.Seconds()
	b.Logf("%d clients, %v: %d requests, %.0f req/s, p50 %.1f ms, p95 %.1f ms", clients, elapsed.Round(time.Millisecond), len(all), rps, ms(q(all, 0.5)), ms(q(all, 0.95)))
	b.ReportMetric(rps, "req/s")
	b.ReportMetric(ms(q(all, 0.5)), "p50-ms")
	b.ReportMetric(ms(q(all, 0.95)), "p95-ms")
}
