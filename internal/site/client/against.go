package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// This file is "llmbench report --against URL": the run a report is laid over,
// fetched from a site's API. URL is a run's page or its API address (that run), or the
// site's address (the best run of the document's GPU and model, metric.BestParams).

// maxFetchedRun bounds a fetched run document: the site accepts 4 MiB by default.
const maxFetchedRun = 32 << 20

// runPath is a run's page or API path; its one group is the run's id.
var runPath = regexp.MustCompile(`^/(?:api/v1/)?runs/([^/]+)/?$`)

// FindAgainst is report.Options.FindAgainst for --against: for each document it
// fetches the run to lay it over from the site at against, with a client that gives up
// after a minute.
func FindAgainst(ctx context.Context, against string) func(*rundoc.Run) (*report.Baseline, error) {
	client := &http.Client{Timeout: time.Minute}
	return func(mine *rundoc.Run) (*report.Baseline, error) {
		b, err := fetchAgainst(ctx, client, against, mine)
		if err != nil {
			return nil, explainUnreachable(err, against)
		}
		return b, nil
	}
}

// fetchAgainst is the run against names: the run of a run URL, else the best run of
// mine's GPU and model on the site (mine itself passed over).
func fetchAgainst(ctx context.Context, client *http.Client, against string, mine *rundoc.Run) (*report.Baseline, error) {
	u, err := url.Parse(strings.TrimSpace(against))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--against %q: give a site's address (https://llmbench.example.org) or a run's page on it", against)
	}
	base := &url.URL{Scheme: u.Scheme, Host: u.Host}
	id := ""
	switch m := runPath.FindStringSubmatch(u.EscapedPath()); {
	case m != nil:
		if id, err = url.PathUnescape(m[1]); err != nil {
			return nil, fmt.Errorf("--against %q: %w", against, err)
		}
	case u.Path == "" || u.Path == "/":
		if id, err = bestID(ctx, client, base, mine); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--against %q: give the site's address or a run's page (/runs/ID), not %s", against, u.Path)
	}
	body, err := getAPI(ctx, client, base.JoinPath("api", "v1", "runs", id).String())
	if err != nil {
		return nil, fmt.Errorf("fetching run %s: %w", id, err)
	}
	// The site checked the document when it took it; this checks the site.
	run, err := rundoc.Decode(body)
	if err == nil {
		if ferr := rundoc.Validate(run); ferr != nil {
			err = ferr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("run %s from %s is not a valid run document: %w", id, base.Host, err)
	}
	return &report.Baseline{Run: run, URL: base.JoinPath("runs", id).String()}, nil
}

// bestID asks the site for the best run of mine's GPU and model other than mine.
func bestID(ctx context.Context, client *http.Client, base *url.URL, mine *rundoc.Run) (string, error) {
	params := metric.BestParams(mine)
	list := base.JoinPath("api", "v1", "runs")
	list.RawQuery = params.Encode()
	body, err := getAPI(ctx, client, list.String())
	if err != nil {
		return "", fmt.Errorf("asking %s for the best run: %w", base.Host, err)
	}
	var ans struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return "", fmt.Errorf("the site's list of runs is not what the API describes: %w", err)
	}
	for _, r := range ans.Runs {
		if r.ID != mine.ID {
			return r.ID, nil
		}
	}
	of := params.Get("model") + " on " + params.Get("gpu")
	if q := params.Get("quant"); q != "" {
		of += " (" + q + ")"
	}
	return "", fmt.Errorf("%s has no other measured run of %s to lay this one over", base.Host, of)
}

// getAPI GETs an API address and reads its answer, at most maxFetchedRun bytes; an
// answer other than 200 is an error in the API's own words.
func getAPI(ctx context.Context, client *http.Client, addr string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchedRun+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading the answer: %w", err)
	case len(body) > maxFetchedRun:
		return nil, errors.New("the answer is larger than any run document")
	case resp.StatusCode != http.StatusOK:
		var e wire.Error
		if json.Unmarshal(body, &e) != nil || e.Reason == "" {
			e.Reason = http.StatusText(resp.StatusCode)
		}
		return nil, fmt.Errorf("the site answered %d: %s", resp.StatusCode, e.Reason)
	}
	return body, nil
}
