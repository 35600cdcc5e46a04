package measure

import (
	"cmp"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// WorkloadSpan is what scoring a workload's figures reads beside the requests: the
// span its load shape measures throughput on (the matrix's window, an open-loop
// cell's first scheduled send to its last end), the turns every session was planned
// to have (0: not sessions), and the server's prefix-cache counters over the cell.
type WorkloadSpan struct {
	From, To int64
	Turns    int
	Server   *rundoc.ServerMetrics
}

// ScoreWorkload computes a workload cell's figures (rundoc.WorkloadFigures) from its
// requests, the same way in every load shape, live and in a re-score: the prefix
// cache's hits achieved against the ideal (each request's IdealCached), and for
// sessions the figures of each turn and the sessions' throughput. Requests sent to
// learn the server's chunks (Calibration) are not the workload's.
func ScoreWorkload(reqs []Request, in WorkloadSpan) *rundoc.WorkloadFigures {
	own := make([]Request, 0, len(reqs))
	for i := range reqs {
		if !reqs[i].Calibration {
			own = append(own, reqs[i])
		}
	}
	w := &rundoc.WorkloadFigures{}
	c := tallyCache(own)
	w.PromptTokens, w.IdealCachedTokens = c.prompt, c.ideal
	if c.prompt > 0 {
		w.IdealCacheHitRatio = RoundPtr(float64(c.ideal)/float64(c.prompt), 4)
	}
	switch s := in.Server; {
	case c.counted > 0 && c.reported == c.counted:
		w.CachedTokens = &c.cached
		w.CacheHitRatio = RoundPtr(float64(c.cached)/float64(c.prompt), 4)
		w.CacheSource = "usage"
	case s != nil && s.PrefixCacheQueries != nil && s.PrefixCacheHits != nil && *s.PrefixCacheQueries > 0:
		w.CacheHitRatio = RoundPtr(*s.PrefixCacheHits / *s.PrefixCacheQueries, 4)
		w.CacheSource = "counters"
	}
	if a, i := w.CacheHitRatio, w.IdealCacheHitRatio; a != nil && i != nil && *i > 0 {
		w.CacheAchieved = RoundPtr(*a / *i, 4)
	}
	if in.Turns > 0 {
		scoreSessions(w, own, in)
	}
	return w
}

// cacheTally sums the prompts the server counted and what it and the ideal say of
// their cache: counted requests, and reported of them that said their cached tokens.
type cacheTally struct {
	prompt, cached, ideal, counted, reported int
}

func tallyCache(reqs []Request) cacheTally {
	var t cacheTally
	for i := range reqs {
		q := &reqs[i]
		if q.IdealCached == nil {
			continue
		}
		cached, prompt, ok := q.CachedPrompt()
		if !ok {
			if q.Usage == nil || q.Usage.PromptTokens == 0 {
				continue
			}
			prompt = q.Usage.PromptTokens
		} else {
			t.reported++
			t.cached += cached
		}
		t.counted++
		t.prompt += prompt
		t.ideal += min(*q.IdealCached, prompt)
	}
	return t
}

// scoreSessions fills the sessions' figures: how many sent a turn, how many answered
// all in.Turns turns with the last inside the span (per second of it: the session
// throughput), and each turn's figures.
func scoreSessions(w *rundoc.WorkloadFigures, reqs []Request, in WorkloadSpan) {
	last := map[string]*Request{}
	byTurn := map[int][]*Request{}
	for i := range reqs {
		q := &reqs[i]
		if q.Session == "" || q.Turn < 1 {
			continue
		}
		if p, ok := last[q.Session]; !ok || q.Turn > p.Turn {
			last[q.Session] = q
		}
		byTurn[q.Turn] = append(byTurn[q.Turn], q)
	}
	w.Sessions = len(last)
	for _, q := range last {
		if q.Turn == in.Turns && q.Finished() && q.End > in.From && q.End <= in.To {
			w.CompletedSessions++
		}
	}
	if in.To > in.From {
		w.SessionsPerS = RoundPtr(float64(w.CompletedSessions)/time.Duration(in.To-in.From).Seconds(), 3)
	}
	for k := 1; k <= min(in.Turns, rundoc.MaxTurns); k++ {
		w.Turns = append(w.Turns, turnFigures(k, byTurn[k]))
	}
}

// turnFigures are one turn's figures over its requests: the history the server
// counted, its cache against the ideal, TTFT from the send (from the schedule where one
// set it: an open-loop session's turn is due its think time after the reply before),
// TPOT over its finished requests.
func turnFigures(turn int, qs []*Request) rundoc.TurnFigures {
	t := rundoc.TurnFigures{Turn: turn, Requests: len(qs)}
	slices.SortFunc(qs, func(a, b *Request) int { return cmp.Compare(a.Sent, b.Sent) })
	var ttft, tpot []Sample
	var prompt, cached, ideal, counted, reported int
	for _, q := range qs {
		from := cmp.Or(q.Scheduled, q.Sent)
		if q.FirstToken != 0 && from != 0 {
			ttft = append(ttft, Sample{V: float64(q.FirstToken-from) / 1e6})
		}
		if n := q.OutputTokens(); q.Finished() && n >= 2 && q.FirstToken != 0 {
			tpot = append(tpot, Sample{V: float64(q.End-q.FirstToken) / 1e6 / float64(n-1)})
		}
		c, p, ok := q.CachedPrompt()
		if !ok && q.Usage != nil {
			p = q.Usage.PromptTokens
		}
		if p == 0 || q.IdealCached == nil {
			continue
		}
		counted++
		prompt += p
		if ok {
			reported++
			cached += c
		}
		ideal += min(*q.IdealCached, p)
	}
	t.TTFTMs, t.TPOTMs = LatencyStats(ttft), LatencyStats(tpot)
	if counted == 0 {
		return t
	}
	mean := func(v int) *float64 { return RoundPtr(float64(v)/float64(counted), 1) }
	t.PromptTokensMean, t.IdealCachedMean = mean(prompt), mean(ideal)
	t.IdealCacheHitRatio = RoundPtr(float64(ideal)/float64(prompt), 4)
	if reported == counted {
		t.CachedTokensMean = mean(cached)
		t.CacheHitRatio = RoundPtr(float64(cached)/float64(prompt), 4)
	}
	return t
}
