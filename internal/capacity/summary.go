package capacity

import "github.com/llmbench/llmbench/internal/rundoc"

// Summary is the capacity block that JSON outputs carry (the report's json format,
// the site's API, calc's json) under "users": the answer at the targets, the table at
// every speed of Speeds, and an open-loop run's rate.
type Summary struct {
	Targets   Targets     `json:"targets"`
	Predicted bool        `json:"predicted,omitempty"`
	Rows      []Row       `json:"rows,omitempty"`
	Table     []Answer    `json:"table,omitempty"`
	Rate      *RateAnswer `json:"rate,omitempty"`
	// Sentences are the answers as the reports write them, in one language.
	Sentences []string `json:"sentences,omitempty"`
}

// Summarize is run's capacity block at targets t (nil when the run has neither decode
// cells nor an open-loop SLO to answer with).
func Summarize(run *rundoc.Run, t Targets) *Summary {
	s := &Summary{Targets: t, Rate: OfRates(run)}
	if s.Rate != nil {
		return s
	}
	if len(run.Decode) == 0 {
		return nil
	}
	a := Of(run, t)
	s.Predicted, s.Rows = a.Predicted, a.Rows
	for _, speed := range Speeds(t) {
		s.Table = append(s.Table, Of(run, t.WithSpeed(speed)))
	}
	return s
}
