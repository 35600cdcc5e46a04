package wire

import (
	"math"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Error is the body of every API error: the status's text, the field at fault (if
// any) and why.
type Error struct {
	Error  string `json:"error"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// SubmitResult is what POST /api/v1/runs answers on success.
type SubmitResult struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Created bool   `json:"created"` // false when the same document was already stored
}

// RunSummary is a run in API listings.
type RunSummary struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Title          string    `json:"title"`
	Kind           string    `json:"kind"`
	Model          string    `json:"model"`
	GPU            string    `json:"gpu"`
	GPUCount       int       `json:"gpu_count"`
	VRAMGB         *float64  `json:"vram_gb"`
	Engine         string    `json:"engine"`
	EngineVersion  string    `json:"engine_version,omitempty"`
	Quantization   string    `json:"quantization,omitempty"`
	Profile        string    `json:"profile"`
	Mode           string    `json:"mode"` // matrix or rate (open-loop cells)
	DecodeTokS     *float64  `json:"decode_tok_s"`
	PeakTokS       *float64  `json:"peak_tok_s"`
	Prefill32KTokS *float64  `json:"prefill_32k_tok_s"`
	TokSPerGB      *float64  `json:"tok_s_per_gb"`
	CreatedAt      time.Time `json:"created_at"`
	SubmittedAt    time.Time `json:"submitted_at"`
	Submitter      string    `json:"submitter"`
	Org            string    `json:"org,omitempty"`
}

// RunList is GET /api/v1/runs's answer: a page of runs, and the offset of the next.
type RunList struct {
	Runs       []RunSummary `json:"runs"`
	NextOffset *int         `json:"next_offset,omitempty"`
}

// Leaderboard is GET /api/v1/leaderboard's answer: the cell ranked by, its entries,
// and every metric a ranking may ask for.
type Leaderboard struct {
	Metric        string      `json:"metric"`
	Context       *int        `json:"context,omitempty"`
	Concurrency   *float64    `json:"concurrency,omitempty"`
	Rate          *Rate       `json:"rate,omitempty"`
	Speed         *float64    `json:"speed_tok_s,omitempty"` // a capacity metric's target per-user speed
	Conditions    *Conditions `json:"conditions,omitempty"`
	LowerIsBetter bool        `json:"lower_is_better"`
	Unit          string      `json:"unit"`
	Entries       []Entry     `json:"entries"`
	NextOffset    *int        `json:"next_offset,omitempty"`
	Grouped       bool        `json:"grouped_by_setup,omitempty"`
	// AccuracyWithin echoes the accuracy filter's points.
	AccuracyWithin *float64 `json:"accuracy_within,omitempty"`
	Metrics        []Metric `json:"metrics"`
}

// RateInf is the request rate of an open-loop cell that sends every request at once,
// as the store keeps it (metric.RateInf: the largest finite number).
const RateInf = math.MaxFloat64

// Rate is a request rate: a number, or "inf" (RateInf).
type Rate float64

// MarshalJSON writes the rate as a number, or "inf".
func (r Rate) MarshalJSON() ([]byte, error) {
	if float64(r) == RateInf {
		return []byte(`"inf"`), nil
	}
	return []byte(strconv.FormatFloat(float64(r), 'f', -1, 64)), nil
}

// UnmarshalJSON reads a rate as MarshalJSON writes it.
func (r *Rate) UnmarshalJSON(b []byte) error {
	if string(b) == `"inf"` {
		*r = RateInf
		return nil
	}
	x, err := strconv.ParseFloat(string(b), 64)
	*r = Rate(x)
	return err
}

// Conditions are what an open-loop ranking's values were measured under: the run
// document's config.rate fields (input_len is the answer's context).
type Conditions struct {
	InputLen       int         `json:"input_len"`
	OutputLen      int         `json:"output_len"`
	Arrival        string      `json:"arrival"`
	LenDist        string      `json:"len_dist"`
	MaxConcurrency int         `json:"max_concurrency,omitempty"`
	PrefixShare    float64     `json:"prefix_share,omitempty"`
	Requests       int         `json:"requests,omitempty"`
	DurationS      float64     `json:"duration_s,omitempty"`
	SLO            *rundoc.SLO `json:"slo,omitempty"`
}

// Entry is one ranked run (or, grouped by setup, the run standing for its setup).
type Entry struct {
	Rank          int     `json:"rank"`
	RunID         string  `json:"run_id"`
	URL           string  `json:"url"`
	Value         float64 `json:"value"`
	Title         string  `json:"title"`
	Kind          string  `json:"kind"`
	Model         string  `json:"model"`
	Family        string  `json:"family"`
	GPU           string  `json:"gpu"`
	GPUCount      int     `json:"gpu_count"`
	Engine        string  `json:"engine"`
	EngineVersion string  `json:"engine_version,omitempty"`
	Quantization  string  `json:"quantization,omitempty"`
	Profile       string  `json:"profile"`
	Mode          string  `json:"mode"`
	Submitter     string  `json:"submitter"`
	// CI is the value's 95% interval, where the run has one; TiedWithPrevious says it
	// overlaps the one above. Runs, Spread and RunIDs describe a grouped setup.
	CI               *stats.Interval `json:"ci,omitempty"`
	TiedWithPrevious bool            `json:"tied_with_previous"`
	Runs             int             `json:"runs,omitempty"`
	Spread           *stats.Interval `json:"spread,omitempty"`
	RunIDs           []string        `json:"run_ids,omitempty"`
}

// Metric describes a registered metric, so that a client learns what it may ask:
// conditions says what a ranking by it must state beside the cell ("workload":
// output length and the rest, defaults allowed; "slo": and the SLO; "slo_target":
// and the share that must meet it).
type Metric struct {
	Name          string `json:"name"`
	Axis          string `json:"axis"`
	LowerIsBetter bool   `json:"lower_is_better"`
	Unit          string `json:"unit"`
	Conditions    string `json:"conditions,omitempty"`
}

// Group is a GPU, model or model family in GET /api/v1/hardware, /models and
// /families: its run count, best measured figures and catalog specs.
type Group struct {
	Name       string   `json:"name"`
	Runs       int      `json:"runs"`
	BestDecode *float64 `json:"best_decode_tok_s,omitempty"` // best single-stream decode tok/s at context 0, measured runs
	BestPeak   *float64 `json:"best_peak_tok_s,omitempty"`
	VRAMGB     *float64 `json:"vram_gb,omitempty"` // GPUs only: the largest total seen
	URL        string   `json:"url"`
	Specs      []Spec   `json:"specs,omitempty"`
}

// ReportSubmission is the body of POST /api/v1/reports.
type ReportSubmission struct {
	Slug   string `json:"slug"`
	Title  string `json:"title"`
	BodyMD string `json:"body_md"`
}

// ReportCreated is what POST /api/v1/reports answers on success.
type ReportCreated struct {
	Slug string `json:"slug"`
	URL  string `json:"url"`
}

// Report is a written report in GET /api/v1/reports.
type Report struct {
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	BodyMD    string    `json:"body_md"`
	Author    string    `json:"author"`
	Org       string    `json:"org,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Predicted is GET /api/v1/predict's answer: a predicted run document with its
// capacity block, as the json report writes one ("users": read from the prediction at
// every number of requests up to the KV limit).
type Predicted struct {
	*rundoc.Run
	Users *capacity.Summary `json:"users,omitempty"`
}

// Capacity is GET /api/v1/runs/{id}/capacity's answer: how many users the run serves.
type Capacity = capacity.Summary
