// Package zerostream owns a streaming server that costs nothing to generate: it answers
// OpenAI-style chat and completion requests with SSE chunks shaped like vLLM's, one token
// per stream per decode step, as an engine's batched decode would emit them, and does no
// other work. It exists to measure the client: with the server this cheap (and, for the
// benchmark, in another process on other cores), what a client spends per token is its
// own.
//
// It speaks just enough HTTP/1.1 for that (keep-alive, chunked responses) over a
// net.Listener, so that the cost of serving is one write per stream per step. Its
// writers can run on locked OS threads and report their own CPU time, so an in-process
// caller (llmbench calibrate) can subtract the server's share from the process's.
package zerostream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Config says how the server streams.
type Config struct {
	// Step is the time between decode steps: every active stream gets one token per
	// step. Zero runs steps back to back (as fast as the writers and clients allow).
	Step time.Duration
	// Model is the served model name.
	Model string
	// Writers is how many goroutines write the streams (each owns a shard of them);
	// default 1.
	Writers int
	// LockThreads runs each writer on its own OS thread and keeps its CPU time (see
	// WriterCPU): the in-process calibration needs it to tell server from client.
	LockThreads bool
	// ContinuousUsage sends usage in every token chunk whether or not the request asked
	// (vLLM's continuous_usage_stats), so that every client reads the same bytes.
	ContinuousUsage bool
	// MaxLag caps how many steps a lagging stream catches up on in one write; the rest
	// are skipped (that stream just generates more slowly). Default 64.
	MaxLag int
	// PromptTokens is what usage.prompt_tokens says; default 16.
	PromptTokens int
}

// Stats are the server's counters.
type Stats struct {
	Active   int64 `json:"active"`   // streams being written now
	Tokens   int64 `json:"tokens"`   // token chunks written since start
	Requests int64 `json:"requests"` // streaming requests accepted since start
	Steps    int64 `json:"steps"`    // decode steps of the first writer
}

// Server is a running zero-compute server.
type Server struct {
	cfg     Config
	ln      net.Listener
	writers []*writer
	next    atomic.Uint64

	active, tokens, requests atomic.Int64

	wg     sync.WaitGroup
	closed atomic.Bool
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

// Listen starts a server on addr ("127.0.0.1:0" for any free port).
func Listen(addr string, cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return Serve(ln, cfg), nil
}

// Serve serves on ln until Close.
func Serve(ln net.Listener, cfg Config) *Server {
	if cfg.Writers < 1 {
		cfg.Writers = 1
	}
	if cfg.MaxLag < 1 {
		cfg.MaxLag = 64
	}
	if cfg.PromptTokens < 1 {
		cfg.PromptTokens = 16
	}
	if cfg.Model == "" {
		cfg.Model = "zerostream"
	}
	s := &Server{cfg: cfg, ln: ln, conns: map[net.Conn]struct{}{}}
	for i := 0; i < cfg.Writers; i++ {
		w := newWriter(s)
		s.writers = append(s.writers, w)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			w.run()
		}()
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.accept()
	}()
	return s
}

// URL is the server's root, e.g. "http://127.0.0.1:41234"; the OpenAI base is URL+"/v1".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Stats returns the counters now.
func (s *Server) Stats() Stats {
	return Stats{Active: s.active.Load(), Tokens: s.tokens.Load(), Requests: s.requests.Load(), Steps: s.writers[0].steps.Load()}
}

// WriterCPU is the CPU time the writers' threads have used, when Config.LockThreads is
// set (zero otherwise, or where threads' CPU time cannot be read).
func (s *Server) WriterCPU() time.Duration {
	var d time.Duration
	for _, w := range s.writers {
		d += time.Duration(w.cpuNs.Load())
	}
	return d
}

// Close stops the server and ends every stream.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.ln.Close()
	for _, w := range s.writers {
		close(w.quit)
	}
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if !s.closed.Load() {
				slog.Debug("zerostream: accept failed", "err", err)
			}
			return
		}
		s.mu.Lock()
		if s.closed.Load() {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// request is what the server reads of a generation request.
type request struct {
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	Stream              bool `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
}

// serveConn answers the requests of one keep-alive connection in turn.
func (s *Server) serveConn(c net.Conn) {
	br := bufio.NewReaderSize(c, 16<<10)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return // the client closed, or sent something that is not HTTP
		}
		if !s.answer(c, req) {
			return
		}
	}
}

// answer writes the response to req; false means the connection must close.
func (s *Server) answer(c net.Conn, req *http.Request) bool {
	switch {
	case req.Method == http.MethodPost && (req.URL.Path == "/v1/chat/completions" || req.URL.Path == "/v1/completions"):
		var r request
		err := json.NewDecoder(io.LimitReader(req.Body, 64<<20)).Decode(&r)
		io.Copy(io.Discard, req.Body)
		if err != nil || !r.Stream {
			return writeSimple(c, http.StatusBadRequest, `{"error":{"message":"zerostream serves stream=true requests with a JSON body"}}`)
		}
		return s.stream(c, req.URL.Path == "/v1/chat/completions", &r)
	case req.Method == http.MethodGet && req.URL.Path == "/v1/models":
		b, _ := json.Marshal(map[string]any{"object": "list", "data": []map[string]any{{"id": s.cfg.Model, "object": "model", "owned_by": "zerostream"}}})
		return writeSimple(c, http.StatusOK, string(b))
	case req.Method == http.MethodGet && req.URL.Path == "/stats":
		b, _ := json.Marshal(s.Stats())
		return writeSimple(c, http.StatusOK, string(b))
	}
	io.Copy(io.Discard, req.Body)
	return writeSimple(c, http.StatusNotFound, `{"error":{"message":"not found"}}`)
}

func writeSimple(c net.Conn, status int, body string) bool {
	_, err := fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", status, http.StatusText(status), len(body), body)
	return err == nil
}

const streamHeaders = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"

// stream hands the request to a writer and waits until it has been written out.
func (s *Server) stream(c net.Conn, chat bool, r *request) bool {
	max := 16
	if r.MaxCompletionTokens != nil {
		max = *r.MaxCompletionTokens
	} else if r.MaxTokens != nil {
		max = *r.MaxTokens
	}
	if max < 1 {
		max = 1
	}
	includeUsage := r.StreamOptions != nil && r.StreamOptions.IncludeUsage
	continuous := s.cfg.ContinuousUsage || (includeUsage && r.StreamOptions.ContinuousUsageStats)
	if _, err := io.WriteString(c, streamHeaders); err != nil {
		return false
	}
	st := newStream(c, s.cfg, chat, max, includeUsage || s.cfg.ContinuousUsage, continuous)
	s.requests.Add(1)
	s.active.Add(1)
	w := s.writers[s.next.Add(1)%uint64(len(s.writers))]
	select {
	case w.add <- st:
	case <-w.quit:
		s.active.Add(-1)
		return false
	}
	var err error
	select {
	case err = <-st.done:
	case <-w.quit:
		// The writer stopped, perhaps before it took this stream from its queue:
		// then nothing would ever end it.
		err = errClosed
	}
	s.active.Add(-1)
	return err == nil
}

// errClosed ends the streams of a server that closed.
var errClosed = errors.New("server closed")

// writer writes its shard of streams, one step at a time.
type writer struct {
	s     *Server
	add   chan *stream
	quit  chan struct{}
	live  []*stream
	steps atomic.Int64
	cpuNs atomic.Int64
}

func newWriter(s *Server) *writer {
	return &writer{s: s, add: make(chan *stream, 1024), quit: make(chan struct{})}
}

func (w *writer) run() {
	if w.s.cfg.LockThreads {
		// Never unlocked: the thread exits with the goroutine, so its CPU time is
		// only ever this writer's.
		lockThread()
	}
	step := w.s.cfg.Step
	next := time.Now()
	var step64 int64
	for {
		if len(w.live) == 0 {
			// Idle: wait for a stream without spinning.
			select {
			case st := <-w.add:
				st.last = step64
				w.live = append(w.live, st)
				next = time.Now()
			case <-w.quit:
				w.endAll()
				return
			}
		}
		w.drainAdds(step64)
		if step > 0 {
			if d := time.Until(next); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-w.quit:
					t.Stop()
					w.endAll()
					return
				}
			}
			next = next.Add(step)
			if behind := time.Since(next); behind > 10*step {
				next = time.Now() // do not try to make up for a long stall
			}
		}
		step64++
		w.steps.Store(step64)
		w.writeStep(step64)
		if w.s.cfg.LockThreads {
			w.cpuNs.Store(int64(threadCPU()))
		}
		select {
		case <-w.quit:
			w.endAll()
			return
		default:
		}
	}
}

func (w *writer) drainAdds(step int64) {
	for {
		select {
		case st := <-w.add:
			st.last = step
			w.live = append(w.live, st)
		default:
			return
		}
	}
}

// writeStep gives every live stream its tokens for this step (more than one for a
// stream that a blocked write left behind, up to MaxLag) and drops the finished ones.
func (w *writer) writeStep(step int64) {
	keep := w.live[:0]
	for _, st := range w.live {
		k := int(step - st.last)
		if k > w.s.cfg.MaxLag {
			k = w.s.cfg.MaxLag
		}
		st.last = step
		n, err := st.write(k)
		w.s.tokens.Add(int64(n))
		if err != nil || st.finished() {
			st.done <- err
			continue
		}
		keep = append(keep, st)
	}
	clear(w.live[len(keep):])
	w.live = keep
}

func (w *writer) endAll() {
	for _, st := range w.live {
		st.done <- errClosed
	}
	w.live = nil
	for {
		select {
		case st := <-w.add:
			st.done <- errClosed
		default:
			return
		}
	}
}

// Run serves on addr until ctx ends: the helper process's main loop.
func Run(ctx context.Context, addr string, cfg Config, ready func(*Server)) error {
	s, err := Listen(addr, cfg)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(s)
	}
	<-ctx.Done()
	return s.Close()
}
