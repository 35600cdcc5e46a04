package clientbench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/zerostream"
)

// counters are what a client under test exposes to the window: tokens read and
// requests that failed so far.
type counters struct {
	tokens func() int64
	errors func() int64
}

// windowControl says when a client's window opens and closes.
type windowControl interface {
	// open returns when the window opens; shut when it closes.
	open(ctx context.Context) error
	shut(ctx context.Context) error
	// serverTokens is what the server wrote over the window, where the control
	// knows (0 when the parent process counts it).
	serverTokens(ctx context.Context) (int64, error)
}

// selfTimed is the window a client times itself: it waits until the server has
// every stream in flight, lets the client settle, and asks the server's counters
// around the window. Each question is an HTTP request from inside the client under
// test, which waits its turn behind the client's own goroutines: at thousands of
// streams on one CPU, tens of seconds (the table's processes use parentTimed).
type selfTimed struct {
	o      ClientOptions
	tokens int64
}

func (w *selfTimed) open(ctx context.Context) error {
	if err := waitActive(ctx, w.o.BaseURL, w.o.Streams, 10*time.Minute); err != nil {
		return err
	}
	if err := clock.SleepErr(ctx, w.o.Settle); err != nil {
		return err
	}
	s0, err := serverStats(ctx, w.o.BaseURL)
	w.tokens = s0.Tokens
	return err
}

func (w *selfTimed) shut(ctx context.Context) error { return clock.SleepErr(ctx, w.o.Window) }

func (w *selfTimed) serverTokens(ctx context.Context) (int64, error) {
	s1, err := serverStats(ctx, w.o.BaseURL)
	return s1.Tokens - w.tokens, err
}

// parentTimed is a window the parent process opens: it watches the server, and when
// every stream is in flight and has settled it writes "open" to the client's stdin.
// The client only reads the line (one wake-up of one goroutine), then samples its own
// counters around a window it times itself, so a saturated client still measures: a
// late wake-up delays the window, never shortens it, and the window is the time
// between the client's own samples.
type parentTimed struct {
	r      *bufio.Reader
	window time.Duration
}

func (w *parentTimed) open(ctx context.Context) error {
	got := make(chan error, 1)
	go func() {
		line, err := w.r.ReadString('\n')
		if err == nil && strings.TrimSpace(line) != "open" {
			err = fmt.Errorf("the window control said %q, \"open\" expected", strings.TrimSpace(line))
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			return fmt.Errorf("reading the window control: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *parentTimed) shut(ctx context.Context) error { return clock.SleepErr(ctx, w.window) }

func (w *parentTimed) serverTokens(context.Context) (int64, error) { return 0, nil }

// measureWindow samples the process's CPU time, the client's token count and the
// allocator around the window ctl gives. Everything else (waiting for the streams,
// asking the server) happens outside the window.
func measureWindow(ctx context.Context, o ClientOptions, c counters, ctl windowControl) (Result, error) {
	res := Result{Kind: o.Kind, Streams: o.Streams, Procs: runtime.GOMAXPROCS(0)}
	if err := ctl.open(ctx); err != nil {
		return res, err
	}
	if o.MemProfile != "" {
		if err := writeHeap(o.MemProfile + ".base"); err != nil {
			return res, err
		}
	}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return res, fmt.Errorf("creating the CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, fmt.Errorf("starting the CPU profile: %w", err)
		}
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0, tok0, err0, wall0 := processCPU(), c.tokens(), c.errors(), time.Now()
	werr := ctl.shut(ctx)
	cpu1, tok1, err1, wall1 := processCPU(), c.tokens(), c.errors(), time.Now()
	runtime.ReadMemStats(&m1)
	if o.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	if werr != nil {
		return res, werr
	}
	if o.MemProfile != "" {
		if err := writeHeap(o.MemProfile); err != nil {
			return res, err
		}
	}
	server, err := ctl.serverTokens(ctx)
	if err != nil {
		return res, err
	}
	res.WindowS = wall1.Sub(wall0).Seconds()
	res.CPUS = (cpu1 - cpu0).Seconds()
	res.Tokens = tok1 - tok0
	res.Errors = err1 - err0
	res.ServerToks = server
	if res.Tokens > 0 {
		res.AllocsPerToken = float64(m1.Mallocs-m0.Mallocs) / float64(res.Tokens)
		res.BytesPerToken = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(res.Tokens)
	}
	res.GCs = m1.NumGC - m0.NumGC
	res.MaxRSSMiB = maxRSSMiB()
	return res, nil
}

func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the allocation profile: %w", err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return fmt.Errorf("writing the allocation profile: %w", err)
	}
	return nil
}

// statsClient is apart from the clients under test, so that its connection is not
// one of theirs. Its timeout is long: in a client with thousands of busy goroutines
// on one CPU, this one waits its turn behind all of them (tens of seconds on a loaded
// machine at 4,096 streams) — which is why the table's parent asks instead.
var statsClient = &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Minute}

func serverStats(ctx context.Context, base string) (zerostream.Stats, error) {
	var st zerostream.Stats
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/stats", nil)
	if err != nil {
		return st, err
	}
	resp, err := statsClient.Do(req)
	if err != nil {
		return st, fmt.Errorf("asking the server for its counters: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("reading the server's counters: %w", err)
	}
	return st, nil
}

// waitActive waits until the server writes n streams at once.
func waitActive(ctx context.Context, base string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		st, err := serverStats(ctx, base)
		if err != nil {
			return err
		}
		if st.Active >= int64(n) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d streams in flight after %s", st.Active, n, timeout)
		}
		if err := clock.SleepErr(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}
