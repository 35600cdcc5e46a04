package report

import (
	"math"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// clientHeadroom is what the run card says of the measuring client's own ceiling
// (llmbench calibrate, measured before the first cell): how many times the run's
// fastest rate it could have taken in, with the ceiling and the rate; "not measured"
// for a run whose client did not calibrate; "" for a document no client measured
// (the seed's, a prediction).
func clientHeadroom(run *rundoc.Run, lang string) string {
	cl := run.Client
	if cl == nil || run.Kind() == rundoc.RunPredicted {
		return ""
	}
	ceiling := cl.Ceiling()
	if ceiling <= 0 {
		return locale.T(lang, "headroom_unmeasured")
	}
	ceilingStr := FormatNumber(lang, ceiling, 0)
	fastest := fastestRate(run)
	if fastest <= 0 {
		return locale.T(lang, "headroom_no_cell", ceilingStr, cl.Cores)
	}
	times, rate := FormatNumber(lang, ceiling/fastest, 1), FormatNumber(lang, fastest, 1)
	if locale.Norm(lang) == "ja" {
		return locale.T(lang, "headroom", rate, times, ceilingStr, cl.Cores)
	}
	return locale.T(lang, "headroom", times, rate, ceilingStr, cl.Cores)
}

// fastestRate is the highest output rate the run measured: a decode cell's total
// tok/s or a rate cell's.
func fastestRate(run *rundoc.Run) float64 {
	best := 0.0
	for i := range run.Decode {
		c := &run.Decode[i]
		if c.DecodeFigures != nil && c.Status != rundoc.StatusOverCapacity && c.Status != rundoc.StatusPredicted {
			best = max(best, c.TotalTokS)
		}
	}
	for i := range run.Rate {
		if f := run.Rate[i].RateFigures; f != nil {
			best = max(best, f.TotalTokS)
		}
	}
	return best
}

// cellHeadroom is the client's ceiling over one cell's rate, for the CSV ("" when
// either is unknown).
func cellHeadroom(run *rundoc.Run, tokS float64) string {
	c := run.Client.Ceiling()
	if c <= 0 || tokS <= 0 {
		return ""
	}
	return num(math.Round(c/tokS*100) / 100)
}
