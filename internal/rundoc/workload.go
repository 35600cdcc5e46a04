package rundoc

import "fmt"

// Workloads as data (docs/workloads.md): what a run sent besides random words, and
// the figures that go with it. A run without a workload has none of these fields.

// Workload is what the run sent (config.workload): a dataset's requests, multi-turn
// sessions, a replayed trace or fixed schedule, or a pool of shared system prompts.
// Sessions may take their users' messages from the dataset.
type Workload struct {
	Dataset    *WorkloadFile   `json:"dataset,omitempty"`
	Sessions   *SessionPlan    `json:"sessions,omitempty"`
	Trace      *TracePlan      `json:"trace,omitempty"`
	PrefixPool *PrefixPoolPlan `json:"prefix_pool,omitempty"`
	// CacheBlock is the server's prefix-cache block in tokens, in which the ideal
	// cache hits are counted (16: vLLM and the emulator; 1: a cache of single tokens).
	CacheBlock int `json:"cache_block,omitempty"`
}

// WorkloadFile names a file a workload was read from: its base name (no path of the
// measuring machine goes with a published document), its format and its SHA-256, so
// that a resumed run is sure to read the same data.
type WorkloadFile struct {
	File   string `json:"file"`
	Format string `json:"format"` // prompts | sharegpt | mooncake | schedule
	SHA256 string `json:"sha256,omitempty"`
	// Entries is how many requests (or conversations) the file holds.
	Entries int `json:"entries"`
}

// SessionPlan is a multi-turn workload: every session sends Turns requests, each
// with every message so far (the server's real replies included) and a new user
// message, of UserTokens tokens where it is synthetic, after a think time.
type SessionPlan struct {
	Turns      int `json:"turns"`
	UserTokens int `json:"user_tokens,omitempty"`
	// Think is the pause between a reply and the next message: a duration ("2s"),
	// or "exp:2s" for exponential pauses of that mean.
	Think string `json:"think"`
}

// TracePlan is a replay: the file's requests sent on its timestamps, Speed times
// faster; a Mooncake trace's hash ids stand for BlockSize tokens each.
type TracePlan struct {
	WorkloadFile
	Speed     float64 `json:"speed"`
	BlockSize int     `json:"block_size,omitempty"`
	// Requests is how many of the file's requests were replayed (its first ones).
	Requests int `json:"requests"`
	// IdealCacheHitRatio is the trace's own ideal (workload.Trace.IdealCached) over
	// the requests replayed, in the server's cache blocks.
	IdealCacheHitRatio *float64 `json:"ideal_cache_hit_ratio,omitempty"`
}

// PrefixPoolPlan is K shared system prompts of Tokens tokens; each request draws one.
type PrefixPoolPlan struct {
	Prompts int `json:"prompts"`
	Tokens  int `json:"tokens"`
}

// ArrivalTrace is the arrival of a replayed trace or fixed schedule: its own
// timestamps.
const ArrivalTrace = "trace"

// WorkloadFigures are what a cell of a workload measured beyond its load shape's
// figures: the prefix cache's hits achieved against the ideal, and, for sessions,
// figures per turn and the sessions' throughput.
type WorkloadFigures struct {
	// PromptTokens are the prompt tokens of the requests the server counted (its
	// usage); CachedTokens those it said it found cached (null: it said nothing per
	// request); IdealCachedTokens those an exact prefix cache that never evicts holds
	// for them (the share of each prompt that repeats what came before: earlier turns,
	// the trace's equal blocks, the pool's prompt), in whole cache blocks.
	PromptTokens      int  `json:"prompt_tokens"`
	CachedTokens      *int `json:"cached_tokens"`
	IdealCachedTokens int  `json:"ideal_cached_tokens"`
	// CacheHitRatio is cached over prompt tokens (from usage, or the server's
	// prefix-cache counters over the cell: CacheSource "usage" or "counters");
	// IdealCacheHitRatio the ideal over prompt tokens; CacheAchieved the first over the
	// second (1: every hit the workload allows was found).
	CacheHitRatio      *float64 `json:"cache_hit_ratio"`
	IdealCacheHitRatio *float64 `json:"ideal_cache_hit_ratio"`
	CacheAchieved      *float64 `json:"cache_achieved,omitempty"`
	CacheSource        string   `json:"cache_source,omitempty"`
	// Sessions: how many sessions sent a turn in the cell, how many answered all
	// their turns, and those completed per second (session throughput) over the span
	// the cell's throughput is measured on.
	Sessions          int      `json:"sessions,omitempty"`
	CompletedSessions int      `json:"completed_sessions,omitempty"`
	SessionsPerS      *float64 `json:"sessions_per_s,omitempty"`
	// Turns are the figures of each turn, from the first.
	Turns []TurnFigures `json:"turns,omitempty"`
}

// TurnFigures are one turn's figures over the cell's sessions: its history (the
// prompt it sent, as the server counted it), its cache hits against the ideal, and
// its latencies (TTFT from its send, TPOT over its finished requests).
type TurnFigures struct {
	Turn     int `json:"turn"` // from 1
	Requests int `json:"requests"`
	// PromptTokensMean is the turn's mean prompt: the history it carried.
	PromptTokensMean   *float64     `json:"prompt_tokens_mean"`
	CachedTokensMean   *float64     `json:"cached_tokens_mean"`
	IdealCachedMean    *float64     `json:"ideal_cached_tokens_mean"`
	CacheHitRatio      *float64     `json:"cache_hit_ratio"`
	IdealCacheHitRatio *float64     `json:"ideal_cache_hit_ratio"`
	TTFTMs             LatencyStats `json:"ttft_ms"`
	TPOTMs             LatencyStats `json:"tpot_ms"`
}

// MaxTurns bounds a session's turns (agent trajectories run to a few hundred).
const MaxTurns = 4096

// workload checks the plan's workload and every cell's workload figures.
func (v *validator) workload(r *Run) {
	v.name("config.prompt_source", r.Config.PromptSource)
	if w := r.Config.Workload; w != nil {
		v.workloadFile("config.workload.dataset", w.Dataset)
		if s := w.Sessions; s != nil {
			if s.Turns < 1 || s.Turns > MaxTurns {
				v.fail("config.workload.sessions.turns", "must be within [1, %d], got %d", MaxTurns, s.Turns)
			}
			v.count("config.workload.sessions.user_tokens", s.UserTokens)
			v.text("config.workload.sessions.think", s.Think, MaxName)
		}
		if t := w.Trace; t != nil {
			v.workloadFile("config.workload.trace", &t.WorkloadFile)
			v.number("config.workload.trace.speed", t.Speed, MaxRPS)
			v.count("config.workload.trace.block_size", t.BlockSize)
			v.count("config.workload.trace.requests", t.Requests)
			v.ratio("config.workload.trace.ideal_cache_hit_ratio", t.IdealCacheHitRatio)
		}
		if p := w.PrefixPool; p != nil {
			v.count("config.workload.prefix_pool.prompts", p.Prompts)
			v.count64("config.workload.prefix_pool.tokens", int64(p.Tokens), MaxTokens)
		}
		v.count("config.workload.cache_block", w.CacheBlock)
	}
	for i := range r.Decode {
		v.cellWorkload(fmt.Sprintf("decode[%d].workload", i), r.Decode[i].Workload)
	}
	for i := range r.Rate {
		v.cellWorkload(fmt.Sprintf("rate[%d].workload", i), r.Rate[i].Workload)
	}
}

func (v *validator) workloadFile(f string, w *WorkloadFile) {
	if w == nil {
		return
	}
	v.required(f+".file", w.File)
	v.name(f+".file", w.File)
	v.name(f+".format", w.Format)
	v.name(f+".sha256", w.SHA256)
	v.count(f+".entries", w.Entries)
}

// cellWorkload checks a cell's workload figures: counts non-negative, ratios
// within [0, 1], cached tokens no more than the prompts, turns numbered from 1 in order.
func (v *validator) cellWorkload(f string, w *WorkloadFigures) {
	if w == nil {
		return
	}
	v.counts(f, []namedCount{{"prompt_tokens", w.PromptTokens}, {"ideal_cached_tokens", w.IdealCachedTokens},
		{"sessions", w.Sessions}, {"completed_sessions", w.CompletedSessions}})
	v.optCount(f+".cached_tokens", w.CachedTokens)
	if c := w.CachedTokens; c != nil && *c > w.PromptTokens {
		v.fail(f+".cached_tokens", "%d cached of %d prompt tokens", *c, w.PromptTokens)
	}
	if w.IdealCachedTokens > w.PromptTokens {
		v.fail(f+".ideal_cached_tokens", "%d ideal of %d prompt tokens", w.IdealCachedTokens, w.PromptTokens)
	}
	if w.CompletedSessions > w.Sessions {
		v.fail(f+".completed_sessions", "%d completed of %d sessions", w.CompletedSessions, w.Sessions)
	}
	v.ratio(f+".cache_hit_ratio", w.CacheHitRatio)
	v.ratio(f+".ideal_cache_hit_ratio", w.IdealCacheHitRatio)
	v.optNumber(f+".cache_achieved", w.CacheAchieved, MaxRPS)
	v.optNumber(f+".sessions_per_s", w.SessionsPerS, MaxRPS)
	if w.CacheSource != "" && w.CacheSource != "usage" && w.CacheSource != "counters" {
		v.fail(f+".cache_source", "is %q: usage or counters", w.CacheSource)
	}
	if len(w.Turns) > MaxTurns {
		v.fail(f+".turns", "has %d turns; at most %d", len(w.Turns), MaxTurns)
	}
	for k := range w.Turns {
		t := &w.Turns[k]
		tf := fmt.Sprintf("%s.turns[%d]", f, k)
		if t.Turn != k+1 {
			v.fail(tf+".turn", "is %d; turns are numbered from 1 in order", t.Turn)
		}
		v.count(tf+".requests", t.Requests)
		v.optNumber(tf+".prompt_tokens_mean", t.PromptTokensMean, MaxTokens)
		v.optNumber(tf+".cached_tokens_mean", t.CachedTokensMean, MaxTokens)
		v.optNumber(tf+".ideal_cached_tokens_mean", t.IdealCachedMean, MaxTokens)
		v.ratio(tf+".cache_hit_ratio", t.CacheHitRatio)
		v.ratio(tf+".ideal_cache_hit_ratio", t.IdealCacheHitRatio)
		v.latency(tf+".ttft_ms", &t.TTFTMs)
		v.latency(tf+".tpot_ms", &t.TPOTMs)
	}
}
