// Package client is what the command line asks of a site: "llmbench submit" posts a
// run document to its API, waits out the site's rate limit when told to, and says
// what was refused and why in the API's own words (internal/site/wire); "llmbench
// report --against" fetches the run to lay a document over (against.go).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// SubmitError is a submission the server refused, with its field and reason.
type SubmitError struct {
	Status int
	Field  string
	Reason string
	// RetryAfter is when a 429 or 503 said to try again (Retry-After); 0 without one.
	RetryAfter time.Duration
}

func (e *SubmitError) Error() string {
	msg := fmt.Sprintf("the server refused the run (%d %s)", e.Status, http.StatusText(e.Status))
	if e.Field != "" {
		msg += ": " + e.Field
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Submit posts a run document to a site's API and returns what it answered. server is
// the site's root URL; the document is sent byte for byte.
func Submit(ctx context.Context, client *http.Client, server, token string, doc []byte) (*wire.SubmitResult, error) {
	if client == nil {
		client = http.DefaultClient
	}
	base, err := url.Parse(strings.TrimRight(server, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("--server %q: give the site's URL, like https://llmbench.example.org", server)
	}
	if token == "" {
		return nil, errors.New("no API token: pass --token or set LLMBENCH_TOKEN (the site's operator creates one with llmbench serve token create)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+"/api/v1/runs", bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("submitting: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("submitting to %s: %w", base.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the server's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		var e wire.Error
		if json.Unmarshal(body, &e) != nil || (e.Reason == "" && e.Field == "") {
			e.Reason = strings.TrimSpace(string(body))
			if len(e.Reason) > 300 {
				e.Reason = e.Reason[:300] + "…"
			}
		}
		if ra := resp.Header.Get("Retry-After"); resp.StatusCode == http.StatusTooManyRequests && ra != "" && e.Reason == "" {
			e.Reason = "retry after " + ra + " s"
		}
		serr := &SubmitError{Status: resp.StatusCode, Field: e.Field, Reason: e.Reason}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			serr.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return nil, serr
	}
	var res wire.SubmitResult
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, fmt.Errorf("the server's answer is not what the API describes: %w", err)
	}
	res.URL = base.ResolveReference(&url.URL{Path: res.URL}).String()
	return &res, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date (RFC 9110 §10.2.3);
// 0 when it has neither or the date has passed.
func retryAfter(h string, now time.Time) time.Duration {
	if secs, err := strconv.Atoi(strings.TrimSpace(h)); err == nil {
		return max(0, time.Duration(secs)*time.Second)
	}
	if at, err := http.ParseTime(h); err == nil {
		return max(0, at.Sub(now))
	}
	return 0
}

// How a submission to a busy site is retried: a 429 (the token's rate) or a 503 (the
// site is reading or checking other submissions) says in Retry-After when to come
// back. A longer wait than maxRetryWait (a full disk asks for 5 minutes) is left to
// the submitter.
const (
	submitAttempts = 5
	maxRetryWait   = time.Minute
)

// SubmitRetrying is Submit, tried again while the site answers 429 or 503 with a
// Retry-After of at most maxRetryWait, submitAttempts times in all, saying on note
// why and how long it waits; wait does the waiting (clock.SleepErr).
func SubmitRetrying(ctx context.Context, client *http.Client, server, token string, doc []byte, note io.Writer, wait func(context.Context, time.Duration) error) (*wire.SubmitResult, error) {
	for attempt := 1; ; attempt++ {
		res, err := Submit(ctx, client, server, token, doc)
		var se *SubmitError
		if err == nil || !errors.As(err, &se) || se.RetryAfter <= 0 || se.RetryAfter > maxRetryWait || attempt == submitAttempts {
			return res, err
		}
		fmt.Fprintf(note, "the site answered %d %s (%s); trying again in %s (attempt %d of %d)\n",
			se.Status, http.StatusText(se.Status), se.Reason, se.RetryAfter, attempt+1, submitAttempts)
		if err := wait(ctx, se.RetryAfter); err != nil {
			return nil, fmt.Errorf("waiting to submit again: %w", err)
		}
	}
}

// SubmitFile is "llmbench submit": it posts the run document at path to the site at
// server, with a client that gives up after two minutes a try, retrying while the site
// is busy (SubmitRetrying, saying so on note), and says on w what the site made of it.
func SubmitFile(ctx context.Context, w, note io.Writer, server, token, path string) error {
	if server == "" {
		return errors.New("--server is required (the site's URL, like http://localhost:8080)")
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the run document: %w", err)
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	res, err := SubmitRetrying(ctx, client, server, token, doc, note, clock.SleepErr)
	if err != nil {
		return explainUnreachable(err, server)
	}
	verb := "submitted"
	if !res.Created {
		verb = "already on the site (same document)"
	}
	fmt.Fprintf(w, "%s %s: %s\n", res.ID, verb, res.URL)
	return nil
}

// explainUnreachable says what to do when the site cannot be reached at all: the raw
// dial error names a socket call, not the site or the fix.
func explainUnreachable(err error, server string) error {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot reach the site at %s: connection refused — is llmbench serve running there, and is --server its URL? (%w)", server, err)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot reach the site at %s: unknown host %s — check --server (%w)", server, dnsErr.Name, err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("the site at %s did not answer in time — is --server its URL? (%w)", server, err)
	}
	return err
}
