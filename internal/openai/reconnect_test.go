package openai

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// rawServer is an HTTP/1.1 server written on sockets, so that a test decides what
// happens to each connection: answer a request, answer and close it the way
// llama-server does (cpp-httplib: a kept-alive response, then the socket shut), or
// close it without a byte.
type rawServer struct {
	ln       net.Listener
	mu       sync.Mutex
	conns    int      // connections accepted
	requests []string // "conn#/request#" of every request read in full
	// act says what to do with the n-th request (from 0, over all connections) read on
	// connection conn, whose request index on that connection is i.
	act func(n, conn, i int) action
	wg  sync.WaitGroup
}

type action int

const (
	answer        action = iota // a whole streamed answer, the connection kept
	answerClose                 // a whole streamed answer, then the socket closed (llama-server)
	closeSilently               // the socket closed, not one byte written
	headersClose                // the status line and headers, then the socket closed
)

func startRaw(t *testing.T, act func(n, conn, i int) action) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, act: act}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		id := s.conns
		s.conns++
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c, id)
	}
}

func (s *rawServer) serve(c net.Conn, conn int) {
	defer s.wg.Done()
	defer c.Close()
	br := bufio.NewReader(c)
	for i := 0; ; i++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, fmt.Sprintf("%d/%d", conn, i))
		s.mu.Unlock()
		body := chunk("a", "") + chunk("b", "length") + "data: [DONE]\n\n"
		head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n"
		if req.URL.Path == "/tokenize" {
			body = `{"tokens":[1,2]}`
			head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
		}
		switch s.act(n, conn, i) {
		case closeSilently:
			return
		case headersClose:
			c.Write([]byte(head))
			return
		case answerClose:
			fmt.Fprintf(c, "%s%x\r\n%s\r\n0\r\n\r\n", head, len(body), body)
			return
		default:
			fmt.Fprintf(c, "%s%x\r\n%s\r\n0\r\n\r\n", head, len(body), body)
		}
	}
}

func (s *rawServer) log() (conns int, requests []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, append([]string(nil), s.requests...)
}

// TestStaleConnectionSentAgain (issue 34): a server that closes its connection after
// every streamed response while its headers promise keep-alive. The next request
// written on the kept connection fails before any byte of an answer: it is sent again
// at once on a new connection and succeeds, with no error and one reconnect.
func TestStaleConnectionSentAgain(t *testing.T) {
	// Every request on a kept connection finds it closed: the server reads it and
	// shuts the socket without a byte, as the close of the previous answer that
	// crossed the request on the wire leaves it (deterministic where llama-server's
	// own race fails 10–30% of requests).
	srv := startRaw(t, func(_, _, i int) action {
		if i > 0 {
			return closeSilently
		}
		return answer
	})
	c := NewClient("http://"+srv.ln.Addr().String()+"/v1", "", 4)
	for k := 0; k < 4; k++ {
		res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
		if res.Outcome != OutcomeFinished || res.Tokens != 2 || res.Err != nil {
			t.Fatalf("request %d: %s, %d tokens, %v", k, res.Outcome, res.Tokens, res.Err)
		}
		// Even requests go out on a connection dialled for them and keep it; odd ones
		// find it closed and go out again on one of their own (which keeps nothing).
		if want := k % 2; res.Reconnects != want {
			t.Errorf("request %d: %d reconnects, want %d", k, res.Reconnects, want)
		}
	}
	conns, reqs := srv.log()
	if want := []string{"0/0", "0/1", "1/0", "2/0", "2/1", "3/0"}; conns != 4 || strings.Join(reqs, " ") != strings.Join(want, " ") {
		t.Errorf("%d connections, requests (connection/request) %v; want 4 and %v", conns, reqs, want)
	}
	// PostJSON (tokenize routes, apply-template) follows the same rule: its first
	// request keeps a connection, its second finds it closed and goes out again.
	for k := 0; k < 2; k++ {
		var out struct{ Tokens []int }
		if err := c.PostJSON(context.Background(), "http://"+srv.ln.Addr().String()+"/tokenize", map[string]string{"content": "a b"}, &out); err != nil || len(out.Tokens) != 2 {
			t.Errorf("PostJSON %d: %v, %v", k, out.Tokens, err)
		}
	}
	if _, reqs := srv.log(); len(reqs) != 9 {
		t.Errorf("requests %v: want 9, the second PostJSON sent twice", reqs)
	}
}

// TestLlamaServerCloseAfterStream: the same server as llama-server really is — it
// answers in full and closes the socket at once — loses no request, whatever the race
// between its close and the next request.
func TestLlamaServerCloseAfterStream(t *testing.T) {
	srv := startRaw(t, func(_, _, _ int) action { return answerClose })
	c := NewClient("http://"+srv.ln.Addr().String()+"/v1", "", 4)
	for k := 0; k < 50; k++ {
		if res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil); res.Outcome != OutcomeFinished || res.Err != nil || res.Reconnects > 1 {
			t.Fatalf("request %d: %s, %v, %d reconnects", k, res.Outcome, res.Err, res.Reconnects)
		}
	}
}

// TestProcessedRequestNotSentAgain: what the rule must not retry. A server that wrote
// any byte of an answer saw the request; a new connection that fails was not stale;
// a cancelled request is the caller's. Each fails once, visibly, and is not sent
// again.
func TestProcessedRequestNotSentAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(n, conn, i int) action
		// sent is how many requests the server reads for two client requests.
		sent int
		// fresh sends the second request from a client of its own, so that it surely
		// goes out on a new connection: from the first client it may go out first on
		// the connection the server has just closed, which the client rightly retries
		// (one reconnect), depending on who is quicker.
		fresh bool
	}{
		{"headers then close on a kept connection", func(_, _, i int) action {
			if i > 0 {
				return headersClose
			}
			return answer
		}, 2, false},
		{"a new connection closed without a byte", func(n, _, _ int) action {
			if n == 1 {
				return closeSilently
			}
			return answerClose
		}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRaw(t, tc.act)
			c := NewClient("http://"+srv.ln.Addr().String()+"/v1", "", 4)
			if res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil); res.Outcome != OutcomeFinished {
				t.Fatalf("first request: %s %v", res.Outcome, res.Err)
			}
			if tc.fresh {
				c = NewClient("http://"+srv.ln.Addr().String()+"/v1", "", 4)
			}
			res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
			if res.Outcome.Success() || res.Err == nil || res.Reconnects != 0 {
				t.Errorf("second request: %s, %v, %d reconnects; want a failure, not sent again", res.Outcome, res.Err, res.Reconnects)
			}
			if _, reqs := srv.log(); len(reqs) != tc.sent {
				t.Errorf("the server read requests %v, want %d", reqs, tc.sent)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		srv := startRaw(t, func(_, _, i int) action { return closeSilently })
		c := NewClient("http://"+srv.ln.Addr().String()+"/v1", "", 4)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if res := c.StreamChat(ctx, &ChatRequest{Model: "m"}, nil); res.Outcome != OutcomeCancelled || res.Reconnects != 0 {
			t.Errorf("%s, %d reconnects; want cancelled, not sent again", res.Outcome, res.Reconnects)
		}
	})
}

// TestClosedConnectionErrors: the errors the rule takes for a closed connection.
func TestClosedConnectionErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{fmt.Errorf("Post \"x\": %w", io.EOF), true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("http: server closed idle connection"), true},
		{context.Canceled, false},
		{fmt.Errorf("malformed HTTP response"), false},
	} {
		if got := closedConnection(tc.err); got != tc.want {
			t.Errorf("closedConnection(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
