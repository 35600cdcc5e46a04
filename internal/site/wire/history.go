package wire

import (
	"time"

	"github.com/llmbench/llmbench/internal/stats"
)

// History answers GET /api/v1/history: a GPU × model's measured single-stream decode
// figures by engine version (internal/site/history).
type History struct {
	GPU          string          `json:"gpu"`
	Model        string          `json:"model"`
	Quantization string          `json:"quantization"` // the one asked for; empty: every one
	Runs         int             `json:"runs"`         // how many runs the series hold
	Truncated    bool            `json:"truncated"`    // the pair has more: these are its newest
	Series       []HistorySeries `json:"series"`
}

// HistorySeries is one engine's versions with one weight format, in the engine's order.
type HistorySeries struct {
	Engine       string           `json:"engine"`
	Quantization string           `json:"quantization"`
	Versions     []HistoryVersion `json:"versions"`
}

// HistoryVersion is one engine version's runs.
type HistoryVersion struct {
	// Version is as the runs spell it (the first run's spelling when several spell one
	// release: v0.10.2 and 0.10.2); empty when they do not say.
	Version string `json:"version"`
	// ByDate says that the engine's rule cannot read it: it is placed after the
	// versions the rule orders, by the date of its first run.
	ByDate bool         `json:"by_date"`
	Best   HistoryPoint `json:"best"`
	// Runs are oldest first.
	Runs []HistoryPoint `json:"runs"`
}

// HistoryPoint is one run's decode figure.
type HistoryPoint struct {
	RunID      string          `json:"run_id"`
	DecodeTokS float64         `json:"decode_tok_s"`
	CI         *stats.Interval `json:"decode_tok_s_ci,omitempty"` // absent when the run gives none
	CreatedAt  time.Time       `json:"created_at"`
	GPUCount   int             `json:"gpu_count"`
}
