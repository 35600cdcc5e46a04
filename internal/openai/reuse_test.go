package openai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestConnectionReusedAfterDone: a closed loop of requests that end with [DONE] keeps
// one connection, where closing each body unread would dial one per request.
func TestConnectionReusedAfterDone(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(chunk("a", "") + chunk("b", "length") + "data: [DONE]\n\n"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := NewClient(srv.URL+"/v1", "", 4)
	for i := 0; i < 5; i++ {
		if res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil); res.Outcome != OutcomeFinished || res.Tokens != 2 {
			t.Fatalf("request %d: %s, %d tokens (%v)", i, res.Outcome, res.Tokens, res.Err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 requests in a row opened %d connections, want 1", n)
	}
}

// TestDrainBounded: a server that holds the body open after [DONE] costs the
// connection, not the request: it ends at [DONE]'s arrival, finished, within a moment.
func TestDrainBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(chunk("a", "stop") + "data: [DONE]\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	c := NewClient(srv.URL+"/v1", "", 4)
	start := time.Now()
	res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
	took := time.Since(start)
	if res.Outcome != OutcomeFinished || res.Tokens != 1 {
		t.Fatalf("%s, %d tokens (%v)", res.Outcome, res.Tokens, res.Err)
	}
	if took > 2*time.Second {
		t.Errorf("the request took %s: the drain after [DONE] is not bounded", took)
	}
	if res.End.After(start.Add(took - drainLimit/2)) {
		t.Errorf("the request's end %s is the drain's, not [DONE]'s arrival", res.End.Sub(start))
	}
}

// TestPooledReaderStartsClean: a reader from the pool holds nothing of its last body.
func TestPooledReaderStartsClean(t *testing.T) {
	const size = 4096
	a := getSSEReader(strings.NewReader("error: boom\n\nnot a field\n\nevent: ping\n\ndata: x"), size)
	for {
		if _, err := a.Next(); err != nil {
			break
		}
	}
	if len(a.ErrorField) == 0 || len(a.Stray) == 0 || a.Empty == 0 {
		t.Fatalf("the first body left nothing to clean: %+v", a)
	}
	putSSEReader(a, size)
	b := getSSEReader(strings.NewReader("data: y\n\n"), size)
	ev, err := b.Next()
	if err != nil || string(ev.Data) != "y" || ev.Type != "" {
		t.Fatalf("first event of the second body: %q %q %v", ev.Type, ev.Data, err)
	}
	if len(b.ErrorField) != 0 || len(b.Stray) != 0 || b.Empty != 0 || b.Reads() != 1 {
		t.Errorf("the second body's reader starts with the first's state: %+v", b)
	}
}
