package measure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// ErrNotStreaming is returned by a run when the server does not stream: no cell could
// time a token, so none is measured.
var ErrNotStreaming = errors.New("the server does not stream")

// ErrCannotGenerate is returned (wrapped, with the server's answer) by a run when the
// stream check failed on every try: a server that cannot generate one short answer
// would only fail every measurement, a minute of retries each.
var ErrCannotGenerate = errors.New("the server cannot generate")

// checkBudget bounds the stream check's tries: a server that fails it on every try
// for this long stops the run (docs/run.md: within 30 s, the last wait included).
const checkBudget = 15 * time.Second

// CheckMaxTokens is how many tokens the stream check asks for (a test server tells
// the check from a measured request by it).
const CheckMaxTokens = 16

// CheckStream sends one short request before any measurement and records what it
// shows: whether the server streams at all, and whether it counts every chunk's
// tokens when asked. A field the server refuses (HTTP 400 for continuous usage or
// timings_per_token, as strict gateways answer unknown fields) is dropped from srv and
// the request tried once more. A request that fails otherwise is retried under policy
// for at most checkBudget; when every try failed, the error wraps ErrCannotGenerate
// with the server's last answer. Prompts come from builder.
func CheckStream(ctx context.Context, srv *Server, builder *prompt.Builder, policy RetryPolicy) (*rundoc.StreamCheck, error) {
	check := &rundoc.StreamCheck{}
	budget := min(checkBudget, policy.Budget)
	started := time.Now()
	var res *openai.StreamResult
	for failures := 0; ; {
		// Building the prompt may ask the server to count it (a POST too): a server
		// that cannot answer that fails the check the same way.
		check.Tries++
		var retryAfter time.Duration
		pctx, err := builder.Build(ctx, 0, "")
		if err == nil {
			res = sendCheck(ctx, srv, pctx.Payload(0), check)
			if res.Outcome.Success() || res.NotStreamed || ctx.Err() != nil {
				break
			}
			retryAfter = res.RetryAfter
		} else {
			res = &openai.StreamResult{Outcome: openai.OutcomeFailed, Err: fmt.Errorf("building the check's prompt: %w", err)}
			var herr *openai.HTTPError
			if errors.As(err, &herr) {
				retryAfter = herr.RetryAfter
			}
		}
		failures++
		if ctx.Err() != nil || time.Since(started) > budget || !policy.Wait(ctx, failures, retryAfter) {
			break
		}
	}
	check.Outcome = res.Outcome.String()
	if res.Err != nil {
		check.Error = res.Err.Error()
	}
	check.Streams = !res.NotStreamed && !res.FirstToken.IsZero()
	check.ChunkUsage = res.ChunkUsage
	if res.Usage != nil && res.Usage.CompletionTokens > 0 && len(res.Chunks) > 0 && res.Finished() {
		v := stats.Round(float64(res.Usage.CompletionTokens)/float64(len(res.Chunks)), 2)
		check.TokensPerChunk = &v
	}
	switch {
	case res.NotStreamed:
		return check, ErrNotStreaming
	case !res.Outcome.Success() && ctx.Err() == nil:
		answer := check.Error
		if answer == "" {
			answer = "outcome " + check.Outcome
		}
		return check, fmt.Errorf("%w: the stream check (a 16-token request) failed on all %d tries in %.0f s: %s", ErrCannotGenerate, check.Tries, time.Since(started).Seconds(), answer)
	}
	return check, nil
}

// sendCheck sends the check's request; a field the server refuses with HTTP 400 is
// dropped and the request sent once more.
func sendCheck(ctx context.Context, srv *Server, payload prompt.Payload, check *rundoc.StreamCheck) *openai.StreamResult {
	res := srv.Send(ctx, payload, CheckMaxTokens, nil, false)
	if res.Status != 400 || !(srv.ContinuousUsage || srv.TimingsPerToken) {
		return res
	}
	if srv.ContinuousUsage {
		srv.ContinuousUsage = false
		check.Dropped = append(check.Dropped, "stream_options.continuous_usage_stats")
	}
	if srv.TimingsPerToken {
		srv.TimingsPerToken = false
		check.Dropped = append(check.Dropped, "timings_per_token")
	}
	return srv.Send(ctx, payload, 16, nil, false)
}

// Preflight runs the stream check before a run's first measurement and records it in
// doc. Against a server that does not stream, fail marks every measurement not done
// yet failed with the reason, the document notes it, and ErrNotStreaming is returned;
// against one that cannot generate, the document notes it (every measurement stays
// pending, for --resume once the server answers) and the error is returned. The
// document is saved before either. nil: measure.
func Preflight(ctx context.Context, srv *Server, builder *prompt.Builder, opts *Options, doc *rundoc.Run, fail func(reason string)) error {
	check, err := CheckStream(ctx, srv, builder, opts.RetryPolicy())
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	doc.StreamCheck = check
	switch {
	case errors.Is(err, ErrNotStreaming):
		fail("the server does not stream: it answered stream:true with one JSON body, so no token's arrival can be timed")
		doc.Notes = append(doc.Notes, "The server answered stream:true with one JSON body: it does not stream, so nothing was measured.")
	case errors.Is(err, ErrCannotGenerate):
		doc.Notes = append(doc.Notes, fmt.Sprintf("The run stopped before measuring: %v.", err))
	default:
		return nil
	}
	if cerr := opts.Save(doc); cerr != nil {
		return cerr
	}
	return err
}
