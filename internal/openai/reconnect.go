package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A server that closes a connection it kept leaves the transport a stale one:
// llama-server closes its connection after every streamed response while its headers
// promise keep-alive (cpp-httplib's write_content_chunked returns false once the
// content provider has said it has no more, and its keep-alive loop then shuts the
// socket), and any server or proxy closes idle connections after a while. The next
// request written on such a connection fails before one byte of an answer comes
// back: no handler ever saw it.
//
// Go's transport sends such a request again only when it is idempotent (a GET, or one
// with an Idempotency-Key header): a completion is a POST. The client does it itself,
// under a narrow rule, so that a request a server did see is never sent again
// silently:
//   - the connection was one the transport had kept from an earlier response
//     (httptrace's GotConn says Reused): a new connection that fails is a failure;
//   - not one byte of the response arrived (no GotFirstResponseByte): a server that
//     wrote a status line, headers or any event saw the request, and whatever
//     follows is that request's outcome;
//   - the error is the connection being closed (EOF, reset, broken pipe, or the
//     transport's "server closed idle connection"), not the caller's cancellation nor
//     anything else;
//   - once, at once, on a new connection (a transport that keeps none): a second
//     failure there is the request's own.
// The request keeps its one record: the send time is the new connection's, and
// Reconnects says it was sent again.

// sendOnce is one POST attempt: what came back, whether it went out on a kept
// connection, and whether any byte of the answer arrived.
type sendOnce struct {
	resp     *http.Response
	err      error
	sent     time.Time
	reused   bool
	answered bool
}

// post sends body to url as one POST, and once more at once on a new connection
// when the first try failed on a kept connection that the server had closed, before
// any byte of its answer (see above). setup adds the request's headers. It returns
// the answer, when the attempt that got it was written, and how many times the
// request was sent again.
func (c *Client) post(ctx context.Context, url string, body []byte, setup func(*http.Request)) (*http.Response, time.Time, int, error) {
	first := c.attempt(ctx, c.HTTP, url, body, setup)
	if !staleConnection(ctx, first) {
		return first.resp, first.sent, 0, first.err
	}
	again := c.attempt(ctx, freshClient(c.HTTP), url, body, setup)
	return again.resp, again.sent, 1, again.err
}

func (c *Client) attempt(ctx context.Context, hc *http.Client, url string, body []byte, setup func(*http.Request)) sendOnce {
	var reused, answered atomic.Bool
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return sendOnce{err: err}
	}
	setup(req)
	c.authorize(req)
	a := sendOnce{sent: time.Now()}
	a.resp, a.err = hc.Do(req)
	a.reused, a.answered = reused.Load(), answered.Load()
	return a
}

// staleConnection says an attempt failed the way a request written on a connection
// the server had already closed does, and only that way.
func staleConnection(ctx context.Context, a sendOnce) bool {
	if a.err == nil || ctx.Err() != nil || !a.reused || a.answered {
		return false
	}
	return closedConnection(a.err)
}

// closedConnection says err is the connection being closed under the request.
func closedConnection(err error) bool {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return true
	}
	// net/http's errServerClosedIdle is not exported.
	return strings.Contains(err.Error(), "server closed idle connection")
}

// freshClients holds, per client, one whose transport keeps no connection: a request
// sent through it goes out on a connection of its own.
var freshClients sync.Map // *http.Client → *http.Client

func freshClient(hc *http.Client) *http.Client {
	if f, ok := freshClients.Load(hc); ok {
		return f.(*http.Client)
	}
	t, ok := hc.Transport.(*http.Transport)
	if hc.Transport == nil {
		t, ok = http.DefaultTransport.(*http.Transport)
	}
	if !ok {
		return hc // a transport of another kind: retried through it as it is
	}
	ft := t.Clone()
	ft.DisableKeepAlives = true
	f := &http.Client{Transport: ft, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar, Timeout: hc.Timeout}
	actual, _ := freshClients.LoadOrStore(hc, f)
	return actual.(*http.Client)
}
