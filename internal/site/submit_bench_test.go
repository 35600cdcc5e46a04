package site_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// submitters is how many clients submit at once in BenchmarkSubmit16 (issue 37 item
// 19: 16 simultaneous submitters on PostgreSQL stored 32–42 runs/s).
const submitters = 16

// BenchmarkSubmit16: 16 clients post runs to POST /api/v1/runs at once, each with its
// own token, over loopback, into a fresh store of each kind; b.N runs in all. It
// reports runs stored per second and the p95 of a submission. Run it with a fixed
// count, so that both stores store the same runs:
//
//	go test ./internal/site -run '^$' -bench Submit16 -benchtime 800x
func BenchmarkSubmit16(b *testing.B) {
	seed, err := os.ReadFile(seedcopy.RunPath())
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		b.Run(kind.name, func(b *testing.B) { benchSubmit(b, kind.open(b), seed) })
	}
}

func benchSubmit(b *testing.B, st *store.Store, seed []byte) {
	srv, err := site.New(site.Options{Store: st, RatePerToken: 1e9, RateBurst: 1 << 30, PageTTL: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	tokens := make([]string, submitters)
	for i := range tokens {
		if tokens[i], err = st.CreateToken(context.Background(), fmt.Sprintf("@submitter%d", i), ""); err != nil {
			b.Fatal(err)
		}
	}
	docs := submitDocs(b, seed, b.N)
	tr := &http.Transport{MaxIdleConnsPerHost: submitters}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var next atomic.Int64
	lat := make([][]time.Duration, submitters)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range submitters {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
				t0 := time.Now()
				if code := post(client, hs.URL, tokens[c], docs[i]); code != http.StatusCreated {
					b.Errorf("submission %d: %d, want 201", i, code)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(all[(len(all)-1)*95/100].Microseconds())/1000, "p95-ms")
	if n, err := st.CountRuns(context.Background(), store.Query{}); err != nil || n != len(all) {
		b.Errorf("%d runs stored (%v), want %d", n, err, len(all))
	}
}

// submitDocs are n variants of the seed run (benchVariant: models, GPUs, engines and
// quantizations as the page benchmarks spread them), each with an id of its own.
func submitDocs(b *testing.B, seed []byte, n int) [][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := make([][]byte, n)
	for i := range docs {
		r, err := rundoc.Decode(seed)
		if err != nil {
			b.Fatal(err)
		}
		benchVariant(r, i, rng)
		r.ID = fmt.Sprintf("submit-%06d", i)
		if docs[i], err = json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
	return docs
}

func post(client *http.Client, base, token string, doc []byte) int {
	req, err := http.NewRequest(http.MethodPost, base+"/api/v1/runs", bytes.NewReader(doc))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
