package rundoc

import (
	"time"

	"github.com/llmbench/llmbench/internal/stats"
)

// Accuracy is what llmbench eval measured of one evaluation set on the server: did
// the configuration that was measured for speed still answer right (issue 38). A run
// document holds one entry per set; a document of speed and one of quality can be the
// same document. Every figure comes from Items through accuracy.Summarize, so a
// re-score from the raw answers reproduces it.
type Accuracy struct {
	Set    EvalSet    `json:"set"`
	Config EvalConfig `json:"config"`
	// Status is "complete" when every planned item has an answer, "pending" while
	// items are left (an interrupted run: llmbench eval --resume finishes it).
	Status     string     `json:"status"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`

	// Planned is how many items the run asks (the set, or its --limit subset); Scored
	// how many have an answer to score; Correct how many of those were right.
	// Errors counts items whose request failed after its retries: they are not
	// scored (a resume asks them again).
	Planned int `json:"planned"`
	Scored  int `json:"scored"`
	Correct int `json:"correct"`
	Errors  int `json:"errors,omitempty"`
	// Score is Correct ÷ Scored; CI its Wilson 95% interval; both in [0, 1].
	Score *float64        `json:"accuracy,omitempty"`
	CI    *stats.Interval `json:"accuracy_ci95,omitempty"`
	// CompletionTokensMean is the completion tokens per scored item as the server
	// counted them (usage), the cost of an answer; NoAnswer counts scored items with
	// no answer to extract (wrong); Reasoning those whose answer followed a reasoning
	// block; Truncated those cut off at max_tokens.
	CompletionTokensMean *float64 `json:"completion_tokens_mean,omitempty"`
	NoAnswer             int      `json:"no_answer,omitempty"`
	Reasoning            int      `json:"reasoning_items,omitempty"`
	Truncated            int      `json:"truncated_items,omitempty"`
	// Categories breaks the score down where the set has categories (MMLU-Pro's
	// subjects), in name order.
	Categories []CategoryAccuracy `json:"categories,omitempty"`
	// Items are the per-item records, in the set's order.
	Items []EvalItem `json:"items"`
}

// EvalSet names what was asked, exactly enough to say whether two runs asked the same.
type EvalSet struct {
	// Name is gsm8k, mmlu-pro, or a custom set's file name.
	Name string `json:"name"`
	// Revision is the upstream commit the data was pinned at (a custom set: its SHA-256).
	Revision string `json:"revision"`
	// SHA256 is the data file's checksum; Source where it came from.
	SHA256 string `json:"sha256"`
	Source string `json:"source,omitempty"`
	// Size is how many items the set holds (before --limit).
	Size int `json:"size"`
	// Subset says how the built-in items were chosen from the file (MMLU-Pro's
	// stratified, seeded rule), empty when every item is used.
	Subset string `json:"subset,omitempty"`
	// Prompt names the prompt template and its version; Scorer the default scorer
	// (number, choice, regex or exact).
	Prompt string `json:"prompt"`
	Scorer string `json:"scorer"`
}

// EvalConfig is how the items were asked.
type EvalConfig struct {
	Endpoint    string  `json:"endpoint,omitempty"`
	API         string  `json:"api"` // chat: the server's chat template applies
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"max_tokens"`
	Concurrency int     `json:"concurrency"`
	// Limit is --limit: that many items, evenly spread over the set; 0 = all.
	Limit int `json:"limit,omitempty"`
	// Answers names the file (beside the document) holding every raw answer, the
	// input of a re-score.
	Answers string `json:"answers_file,omitempty"`
}

// EvalItem is one item's record.
type EvalItem struct {
	ID       string `json:"id"`
	Category string `json:"category,omitempty"`
	// Scorer is the item's own scorer where it differs from the set's.
	Scorer string `json:"scorer,omitempty"`
	// Expected is the reference answer (a regex scorer's pattern).
	Expected string `json:"expected"`
	// Answer is what was extracted from the response ("" when nothing was).
	Answer  string `json:"answer"`
	Correct bool   `json:"correct"`
	// CompletionTokens is the server's count; Reasoning says the answer followed a
	// reasoning block (a </think> or reasoning_content); Finish is the finish_reason.
	CompletionTokens int    `json:"completion_tokens"`
	Reasoning        bool   `json:"reasoning,omitempty"`
	Finish           string `json:"finish_reason,omitempty"`
	// Error is why the request failed: the item is not scored.
	Error string `json:"error,omitempty"`
}

// CategoryAccuracy is the score over one category's items.
type CategoryAccuracy struct {
	Name    string          `json:"name"`
	Scored  int             `json:"scored"`
	Correct int             `json:"correct"`
	Score   float64         `json:"accuracy"`
	CI      *stats.Interval `json:"accuracy_ci95,omitempty"`
}

// Accuracy statuses.
const (
	AccuracyComplete = "complete"
	AccuracyPending  = "pending"
)

// AccuracyOf is the run's result on the set named name, or nil.
func (r *Run) AccuracyOf(name string) *Accuracy {
	for i := range r.Accuracy {
		if r.Accuracy[i].Set.Name == name {
			return &r.Accuracy[i]
		}
	}
	return nil
}

// EvalOnly reports whether the document measured quality and no speed: no matrix,
// prefill or rate cells.
func (r *Run) EvalOnly() bool {
	return len(r.Accuracy) > 0 && len(r.Decode) == 0 && len(r.Prefill) == 0 && len(r.Rate) == 0
}
