package openloop

import (
	"math"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// PlanRates fills a new open-loop document's cells: one pending cell per rate, in the
// order given. A --find-max-rate search plans nothing: it adds each cell as it
// decides the next rate.
func PlanRates(doc *rundoc.Run) {
	cfg := doc.Config.Rate
	doc.Rate = doc.Rate[:0]
	if cfg == nil || cfg.Search != nil {
		return
	}
	for _, r := range cfg.Rates {
		doc.Rate = append(doc.Rate, rundoc.RateCell{RateRPS: r, Arrival: cfg.Arrival, Status: rundoc.StatusPending})
	}
}

// InfRequests is how many requests a rate-inf cell sends: --requests, or as many as
// the busiest finite rate schedules in the duration; 0 when neither says.
func InfRequests(cfg *rundoc.RateConfig, duration time.Duration) int {
	if cfg.Requests > 0 {
		return cfg.Requests
	}
	busiest := 0.0
	for _, r := range cfg.Rates {
		if !r.IsInf() {
			busiest = max(busiest, float64(r))
		}
	}
	return int(math.Ceil(busiest * duration.Seconds()))
}
