package session

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// newRateDocument builds an open-loop run document from c: the rate plan, and empty
// matrix axes (the document has no decode matrix).
func newRateDocument(c *Config) (*rundoc.Run, error) {
	if c.Duration < time.Second {
		return nil, fmt.Errorf("--duration %s is too short: a rate cell under a second measures noise", c.Duration)
	}
	if err := checkRequestFlags(c); err != nil {
		return nil, err
	}
	rc, err := c.Rate.config()
	if err != nil {
		return nil, err
	}
	if len(rc.Rates) == 0 && rc.Search == nil && !c.Rate.Replay {
		return nil, errors.New("--rate lists no rate")
	}
	if c.Rate.Replay {
		rc.Arrival = rundoc.ArrivalTrace // its rate comes with the server's cache block (planWorkload)
	}
	for _, r := range rc.Rates {
		if r.IsInf() && openloop.InfRequests(rc, c.Duration) == 0 {
			return nil, errors.New("--rate inf sends every request at once: say how many with --requests (or list a finite rate too)")
		}
	}
	doc := newDocument(c, rundoc.Config{
		Contexts: []int{}, Concurrency: []int{}, PrefillContexts: []int{},
		DurationS: c.Duration.Seconds(), MaxOutputTokens: rc.OutputLen,
		DecodeTest: "request-rate", Rate: rc,
	})
	doc.Prefill, doc.Decode = []rundoc.PrefillRow{}, []rundoc.DecodeCell{}
	return doc, nil
}

// config builds the open-loop plan.
func (o *OpenLoop) config() (*rundoc.RateConfig, error) {
	var rates []rundoc.Rate
	var errR error
	if o.Rates != "" {
		rates, errR = flagValue("rate", o.Rates, rundoc.ParseRateList)
	}
	arr, errA := flagValue("arrival", o.Arrival, rundoc.ParseArrival)
	dist, errD := flagValue("len-dist", o.LenDist, rundoc.ParseLenDist)
	if err := cmp.Or(errR, errA, errD, o.checkSizes()); err != nil {
		return nil, err
	}
	cfg := &rundoc.RateConfig{
		Rates: rates, Arrival: arr.String(), MaxConcurrency: o.MaxConcurrency,
		InputLen: o.InputLen, OutputLen: o.OutputLen, LenDist: dist.String(), PrefixShare: o.PrefixShare,
		Requests: o.Requests, DrainTimeoutS: o.DrainTimeout.Seconds(),
	}
	slo, err := o.sloSpec()
	if err != nil {
		return nil, err
	}
	if slo != "" {
		if cfg.SLO, err = rundoc.ParseSLO(slo, o.Target); err != nil {
			return nil, fmt.Errorf("--slo: %w", err)
		}
	}
	if o.FindMaxRate {
		if cfg.Search, err = o.search(cfg.SLO, rates); err != nil {
			return nil, err
		}
		cfg.Rates = nil
	}
	return cfg, nil
}

// checkSizes refuses request sizes and limits no schedule can have.
func (o *OpenLoop) checkSizes() error {
	switch {
	case o.InputLen < 1 || o.OutputLen < 1:
		return errors.New("--input-len and --output-len must be at least 1")
	case o.PrefixShare < 0 || o.PrefixShare >= 1:
		return fmt.Errorf("--prefix-share %v: give a share in [0, 1)", o.PrefixShare)
	case o.MaxConcurrency < 0 || o.Requests < 0:
		return errors.New("--max-concurrency and --requests cannot be negative")
	case o.DrainTimeout <= 0:
		return errors.New("--drain-timeout must be positive")
	}
	return nil
}

// search is --find-max-rate's search, from the first --rate (1 by default).
func (o *OpenLoop) search(slo *rundoc.SLO, rates []rundoc.Rate) (*rundoc.RateSearch, error) {
	if slo == nil {
		return nil, errors.New("--find-max-rate needs --slo: the targets a rate must meet")
	}
	start := rundoc.Rate(1)
	if len(rates) > 0 {
		start = rates[0]
	}
	if start.IsInf() {
		return nil, errors.New("--find-max-rate starts from a finite --rate")
	}
	if o.SearchSteps < 1 || !(o.Precision > 0) {
		return nil, errors.New("--max-rate-steps must be ≥ 1 and --rate-precision > 0")
	}
	return &rundoc.RateSearch{Start: start, MaxSteps: o.SearchSteps, Precision: o.Precision}, nil
}

// sloSpec is the SLO given: --slo or --goodput, not both.
func (o *OpenLoop) sloSpec() (string, error) {
	goodput := strings.Join(o.Goodput, " ")
	switch {
	case o.SLO != "" && goodput != "":
		return "", errors.New("--slo and --goodput both give the SLO: use one")
	case goodput != "":
		return normalizeSLO(goodput), nil
	}
	return normalizeSLO(o.SLO), nil
}

// normalizeSLO turns any of the accepted spellings — llmbench's ttft=500ms,tpot=50ms,
// vLLM's "ttft:500 tpot:50" (milliseconds), the site's ttft:500ms — into the
// name=value list bench.ParseSLO reads.
func normalizeSLO(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for i, f := range fields {
		if !strings.Contains(f, "=") {
			fields[i] = strings.Replace(f, ":", "=", 1)
		}
	}
	return strings.Join(fields, ",")
}
