// Package measuretest holds what the load shapes' tests (internal/bench's and
// internal/openloop's) share of the measurement core: a test server as they measure
// it, what their exact-timing test servers share (the tokenizer route, reading a
// request, a stream written on an absolute clock), and the rate_drift false-flag
// table both shapes' rule is measured with (drift.go).
package measuretest

import (
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
)

// Server is a test server at url (its API under /v1, a tokenize route at /tokenize)
// as the load shapes measure it: it honours ignore_eos and counts every chunk.
func Server(url string, api prompt.API, maxStreams int) *measure.Server {
	client := openai.NewClient(url+"/v1", "", maxStreams)
	return &measure.Server{
		Client: client, Model: "fake", API: api, IgnoreEOS: true, IgnoreEOSKnown: true, ContinuousUsage: true,
		Counter: &prompt.TokenizeCounter{Client: client, URL: url + "/tokenize"}, Exact: true,
	}
}
