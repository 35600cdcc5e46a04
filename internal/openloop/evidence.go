package openloop

import (
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// What a rate cell gives the validity rules (measure.ValidityRules, the table the
// matrix is judged by too), and the flags that describe it without invalidating.

const (
	// uniqueCacheTolerance: cached tokens a unique prompt may show beyond the template
	// (a cache block that the template and a first word filled).
	uniqueCacheTolerance = 64
	// prefixBlockSlack: a block-granular cache holds the shared prefix rounded down
	// to whole blocks (vLLM: 16 tokens; allow two).
	prefixBlockSlack = 32
)

// judge runs the validity rules over the cell's evidence: the flags of those that
// fail, and the first one's reason.
func judge(cell *rundoc.RateCell, e *measure.Evidence) {
	failed, reason := measure.Judge(e)
	f := cell.RateFigures
	for _, fl := range failed {
		if !slices.Contains(f.Flags, fl) {
			f.Flags = append(f.Flags, fl)
		}
	}
	if reason != "" {
		cell.Status, cell.Reason = rundoc.StatusInvalid, reason
	}
}

// evidence is what the cell's requests, its server and its client say of its
// validity; it records the counts it reads in f.
func evidence(f *rundoc.RateFigures, reqs []measure.Request, s *rateSamples, in RateInput) *measure.Evidence {
	e := &measure.Evidence{Shape: measure.Schedule, IgnoreEOSKnown: in.IgnoreEOSKnown, ClientCPU: in.ClientCPU,
		Finished: f.CompletedRequests, OutputTokens: f.OutputTokens, PrefixTokens: in.PrefixTokens}
	t := tallyTokens(reqs, s.times)
	countEvidence(f, e, t)
	earlyEnds(f, e, t)
	if t.promptReqs > 0 {
		f.PromptTokensMean = stats.Round(float64(t.prompted)/float64(t.promptReqs), 1)
	}
	if t.targetReqs > 0 {
		f.PromptTokensTarget = stats.Round(float64(t.asked)/float64(t.targetReqs), 1)
		e.PromptTokens, e.PromptTarget, e.PromptRequests = t.targeted, t.asked, t.targetReqs
	}
	cacheEvidence(f, e, t, in)
	if in.MaxConcurrency > 0 && slices.ContainsFunc(s.slotWait, func(x latencySample) bool { return x.V > 0 }) {
		// The wait is part of the latency, and said.
		f.Flags = append(f.Flags, "slot_wait")
	}
	if n := len(s.sendLag); n > 0 {
		e.Sends = measure.SendLag{Late: s.late, Sent: n, MedianMs: measure.QuantileOf(s.sendLag, 0.5)}
	}
	return e
}

// tokenTally is what a cell's requests say of their tokens and prompts.
type tokenTally struct {
	// client and server count the finished requests with usage (withUsage of them);
	// unfinishedChunked the unfinished requests' tokens that were counted one per
	// chunk; perChunk says some request was counted per chunk by the server.
	client, server, withUsage, unfinishedChunked int
	perChunk                                     bool
	endedEarly                                   int
	// prompted sums the prompts of the promptReqs requests the server counted, and
	// targeted and asked those of the targetReqs of them that had a target; cached the
	// cached tokens of cachedReqs of them, ideal their ideal where the workload says.
	prompted, promptReqs, targeted, asked, targetReqs, cached, cachedReqs, ideal int
	// whole requests arrived whole (measure.Request.ArrivedWhole), with wholeTokens.
	whole, wholeTokens int
}

func tallyTokens(reqs []measure.Request, times []requestTimes) tokenTally {
	var t tokenTally
	for i := range reqs {
		q := &reqs[i]
		t.perChunk = t.perChunk || q.ChunkUsage
		if q.EndedEarly(q.OutputTarget) {
			t.endedEarly++
		}
		if q.ArrivedWhole() {
			t.whole++
			t.wholeTokens += times[i].tokens
		}
		if !times[i].finished && !q.ChunkUsage {
			t.unfinishedChunked += q.Tokens
		}
		if q.Usage == nil {
			continue
		}
		if times[i].finished {
			t.client += q.Tokens
			t.server += q.Usage.CompletionTokens
			t.withUsage++
		}
		if q.Usage.PromptTokens > 0 {
			t.prompted += q.Usage.PromptTokens
			t.promptReqs++
			if q.InputTarget > 0 {
				// A workload's prompt the server did not count before it was sent
				// (no cheap tokenizer, a session's history) has no target to miss.
				t.targeted += q.Usage.PromptTokens
				t.asked += q.InputTarget
				t.targetReqs++
			}
			if d := q.Usage.PromptTokensDetails; d != nil && d.CachedTokens != nil {
				t.cached += *d.CachedTokens
				t.cachedReqs++
				if q.IdealCached != nil {
					t.ideal += *q.IdealCached
				}
			}
		}
	}
	return t
}

// countEvidence compares the client's count of the finished requests' tokens with
// the server's. None reported usage: nothing verifies the count. More on the server's
// side means chunks carried several tokens: the finished requests were counted by the
// server (measure.Request.OutputTokens), which the flag multi_token_chunks says; the unfinished ones,
// counted one per chunk, may then be short by up to the finished requests' excess
// ratio — the count's bound. Fewer on the server's side, or any difference where the
// server counted every chunk, is a count the run cannot trust.
func countEvidence(f *rundoc.RateFigures, e *measure.Evidence, t tokenTally) {
	e.WholeRequests, e.WholeTokens = t.whole, t.wholeTokens
	switch {
	case t.withUsage == 0 && f.CompletedRequests > 0:
		e.CountSource = rundoc.CountClientOnly
		return
	case t.withUsage == 0:
		return
	}
	f.ServerOutputTokens = openai.Ptr(t.server)
	if measure.RelDiff(t.client, t.server) <= 0.01 {
		return
	}
	if t.perChunk || t.server < t.client {
		e.CountMismatch = &measure.CountMismatch{Client: t.client, Server: t.server}
		return
	}
	f.Flags = append(f.Flags, "multi_token_chunks")
	if t.unfinishedChunked == 0 || f.OutputTokens == 0 {
		return
	}
	perChunk := float64(t.server) / float64(t.client)
	bound := float64(t.unfinishedChunked) * (perChunk - 1) / float64(f.OutputTokens)
	f.TokenCountBound = measure.RoundPtr(bound, 4)
	e.Bound = measure.CountBound{Estimated: true, OK: true, Rel: bound, Uncounted: t.unfinishedChunked, PerChunk: perChunk}
}

// earlyEnds records the finished requests that ended before their output length and
// the share of the finished requests they are (early_end_loss: measure's endedEarly
// rule says what it bounds).
func earlyEnds(f *rundoc.RateFigures, e *measure.Evidence, t tokenTally) {
	f.EndedEarly = t.endedEarly
	if t.endedEarly == 0 || f.CompletedRequests == 0 {
		return
	}
	loss := float64(t.endedEarly) / float64(f.CompletedRequests)
	f.EarlyEndLoss = measure.RoundPtr(loss, 4)
	f.Flags = append(f.Flags, "ended_early")
	e.EndedEarly, e.EarlyEndLoss = t.endedEarly, loss
}

// cacheEvidence reads the prefix cache: per-request cached tokens where the server
// reports them, its hit counters over the cell where it does not. Unique prompts must
// not hit it beyond the template; a shared prefix should (prefix_not_cached says it
// did not: the measurement is the server's, but not of the share asked).
func cacheEvidence(f *rundoc.RateFigures, e *measure.Evidence, t tokenTally, in RateInput) {
	perRequest, have := 0.0, false
	meanPrompt := f.PromptTokensMean
	if t.cachedReqs > 0 {
		f.CachedTokens = openai.Ptr(t.cached)
		perRequest, have = float64(t.cached)/float64(t.cachedReqs), true
		if t.prompted > 0 {
			f.CacheHitRatio = measure.RoundPtr(float64(t.cached)/float64(t.prompted), 4)
		}
	} else if s := in.Server; s != nil && s.PrefixCacheQueries != nil && s.PrefixCacheHits != nil && *s.PrefixCacheQueries > 0 {
		ratio := *s.PrefixCacheHits / *s.PrefixCacheQueries
		f.CacheHitRatio = measure.RoundPtr(ratio, 4)
		if meanPrompt == 0 {
			meanPrompt = float64(in.Overhead + in.PrefixTokens)
		}
		perRequest, have = ratio*meanPrompt, meanPrompt > 0
	}
	if !have && in.Workload != nil {
		return // the workload's figures say what its cache did (cache_source)
	}
	if !have {
		if in.PrefixTokens > 0 {
			f.Flags = append(f.Flags, "prefix_unverified")
		} else {
			f.Flags = append(f.Flags, "uniqueness_unverified")
		}
		return
	}
	e.Cached, e.CachedPerRequest = true, perRequest
	e.CacheAllowed = float64(in.PrefixTokens + in.Overhead + uniqueCacheTolerance)
	if w := in.Workload; w != nil {
		// A workload's prompts share what it shares: its ideal bounds what the server
		// may find, where the ideal is of prompts that share nothing else (measure.
		// Workload.IdealBounds); a dataset's may share anything.
		e.Cached = w.IdealBounds && t.cachedReqs > 0
		if e.Cached {
			e.CacheAllowed += float64(t.ideal) / float64(t.cachedReqs)
		}
		return
	}
	if in.PrefixTokens > 0 && perRequest < float64(in.PrefixTokens-prefixBlockSlack)*0.9 {
		f.Flags = append(f.Flags, "prefix_not_cached")
	}
}
