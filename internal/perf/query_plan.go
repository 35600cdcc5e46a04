package perf

import (
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// PlanText is the matrix as typed: lists of token counts ("0,16K,32K,56K", K = 1024),
// of concurrencies ("1,2,4"), a max output and a max model length in tokens ("64K";
// MaxModelLen "" is the model's context) and the window in seconds. A list is taken
// as given: "" is no row.
type PlanText struct {
	Contexts, Concurrency, Prefill string
	MaxOutput, MaxModelLen         string
	DurationS                      float64
}

// ParsePlan is the matrix a PlanText types, on the seed's plan (DefaultPlan); its
// errors name calc's flags.
func ParsePlan(t PlanText) (Plan, error) {
	var err error
	p := DefaultPlan()
	if p.Contexts, err = rundoc.ParseTokenList(t.Contexts); err != nil {
		return p, fmt.Errorf("--contexts: %w", err)
	}
	if p.Concurrency, err = rundoc.ParseIntList(t.Concurrency); err != nil {
		return p, fmt.Errorf("--concurrency: %w", err)
	}
	if p.PrefillContexts, err = rundoc.ParseTokenList(t.Prefill); err != nil {
		return p, fmt.Errorf("--prefill: %w", err)
	}
	if p.MaxOutputTokens, err = rundoc.ParseTokens(t.MaxOutput); err != nil || p.MaxOutputTokens <= 0 {
		return p, fmt.Errorf("--max-output %q: a positive token count", t.MaxOutput)
	}
	if t.MaxModelLen != "" {
		n, err := rundoc.ParseTokens(t.MaxModelLen)
		if err != nil || n <= 0 {
			return p, fmt.Errorf("--max-model-len %q: a positive token count", t.MaxModelLen)
		}
		p.MaxModelLen = int64(n)
	}
	if t.DurationS <= 0 {
		return p, errors.New("--duration must be positive")
	}
	p.DurationS = t.DurationS
	return p, nil
}

// Annotate adds to a run predicted from r what its reader should know of how the
// query was read: the model's name, an older engine build (whose version, as asked,
// the run's engine then carries) and an Intel GPU's borrowed factors.
func (r Resolved) Annotate(run *rundoc.Run) {
	if r.NameNote != "" {
		run.Notes = append(run.Notes, r.NameNote+".")
	}
	if note := r.Era.Note(); note != "" {
		run.Engine.Version = r.Era.Asked
		run.Notes = append(run.Notes, note)
	}
	if s := r.Setup; s.GPU.Vendor == "intel" {
		run.Notes = append(run.Notes, fmt.Sprintf("No published measurement of an Intel GPU is in the evidence: the factors are family %s's, fitted on other vendors' GPUs.", s.Engine.Family(s.GPU.Vendor)))
	}
}

// PredictQuery is "llmbench calc": the query resolved, the plan parsed, the matrix
// predicted at now with the notes on how the query was read (Annotate) and the energy
// estimate at the catalog's reference price.
func (c *Catalog) PredictQuery(q Query, t PlanText, now time.Time) (*rundoc.Run, error) {
	r, p, err := c.resolvePlan(q, t)
	if err != nil {
		return nil, err
	}
	run, err := r.Setup.PredictRun(p, now)
	if err != nil {
		return nil, err
	}
	r.Annotate(run)
	if err := r.Setup.EstimateEnergy(run, p, r.Setup.CatalogPrice()); err != nil {
		return nil, err
	}
	return run, nil
}

// resolvePlan is the query resolved and the plan parsed: what calc's predictions stand on.
func (c *Catalog) resolvePlan(q Query, t PlanText) (Resolved, Plan, error) {
	r, err := c.Resolve(q)
	if err != nil {
		return Resolved{}, Plan{}, err
	}
	p, err := ParsePlan(t)
	return r, p, err
}
