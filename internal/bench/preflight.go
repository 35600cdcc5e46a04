package bench

import (
	"context"
	"errors"

	"github.com/llmbench/llmbench/internal/openai"
)

// ErrNotStreaming is returned by Run when the server does not stream: no cell could
// time a token, so none is measured.
var ErrNotStreaming = errors.New("the server does not stream")

// checkStream sends one short request before any measurement and records what it
// shows: whether the server streams at all, and whether it counts every chunk's
// tokens when asked. A field the server refuses (HTTP 400 for continuous usage or
// timings_per_token, as strict gateways answer unknown fields) is dropped and the
// request tried once more.
func (r *Runner) checkStream(ctx context.Context) (*StreamCheck, error) {
	pctx, err := r.builder.Build(ctx, 0, "")
	if err != nil {
		return &StreamCheck{Outcome: openai.OutcomeFailed.String(), Error: "building the check's prompt: " + err.Error()}, nil
	}
	check := &StreamCheck{}
	var res *openai.StreamResult
	for try := 0; try < 2; try++ {
		res = r.Server.Send(ctx, pctx.Payload(0), 16, nil, false)
		if res.Status != 400 || !(r.Server.ContinuousUsage || r.Server.TimingsPerToken) {
			break
		}
		if r.Server.ContinuousUsage {
			r.Server.ContinuousUsage = false
			check.Dropped = append(check.Dropped, "stream_options.continuous_usage_stats")
		}
		if r.Server.TimingsPerToken {
			r.Server.TimingsPerToken = false
			check.Dropped = append(check.Dropped, "timings_per_token")
		}
	}
	check.Outcome = res.Outcome.String()
	if res.Err != nil {
		check.Error = res.Err.Error()
	}
	check.Streams = !res.NotStreamed && !res.FirstToken.IsZero()
	check.ChunkUsage = res.ChunkUsage
	if res.Usage != nil && res.Usage.CompletionTokens > 0 && len(res.Chunks) > 0 && res.Finished() {
		v := round(float64(res.Usage.CompletionTokens)/float64(len(res.Chunks)), 2)
		check.TokensPerChunk = &v
	}
	if res.NotStreamed {
		return check, ErrNotStreaming
	}
	return check, nil
}

// failPending marks every measurement not done yet failed, for reason.
func failPending(doc *Run, reason string) {
	for i := range doc.Prefill {
		if !doc.Prefill[i].Status.done() {
			doc.Prefill[i].Status, doc.Prefill[i].Reason = StatusFailed, reason
		}
	}
	for i := range doc.Decode {
		if !doc.Decode[i].Status.done() {
			doc.Decode[i].Status, doc.Decode[i].Reason = StatusFailed, reason
		}
	}
}
