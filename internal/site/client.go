package site

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// SubmitError is a submission the server refused, with its field and reason.
type SubmitError struct {
	Status int
	Field  string
	Reason string
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
func Submit(ctx context.Context, client *http.Client, server, token string, doc []byte) (*SubmitResult, error) {
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
		var e apiError
		if json.Unmarshal(body, &e) != nil || (e.Reason == "" && e.Field == "") {
			e.Reason = strings.TrimSpace(string(body))
			if len(e.Reason) > 300 {
				e.Reason = e.Reason[:300] + "…"
			}
		}
		if ra := resp.Header.Get("Retry-After"); resp.StatusCode == http.StatusTooManyRequests && ra != "" && e.Reason == "" {
			e.Reason = "retry after " + ra + " s"
		}
		return nil, &SubmitError{Status: resp.StatusCode, Field: e.Field, Reason: e.Reason}
	}
	var res SubmitResult
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, fmt.Errorf("the server's answer is not what the API describes: %w", err)
	}
	res.URL = base.ResolveReference(&url.URL{Path: res.URL}).String()
	return &res, nil
}
