package session

import (
	"context"
	"fmt"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// recordCeiling measures the client's ceiling before the first cell and writes it into
// the run document's client block, unless the document has one (a resumed run keeps
// the figure measured when it started) or skip says not to. It reports whether it
// changed the document. A measurement that fails leaves a note, not a failed run.
func recordCeiling(ctx context.Context, doc *rundoc.Run, skip bool, log func(string)) bool {
	if doc.Client == nil {
		doc.Client = newClient()
	}
	cl := doc.Client
	switch {
	case cl.CeilingTokS != nil:
		log(fmt.Sprintf("this client reads up to %s tok/s on %d cores (measured when the run started)", report.FormatNumber("en", *cl.CeilingTokS, 0), cl.Cores))
		return false
	case skip:
		log("client ceiling not measured (--no-calibrate): no cell is checked against it")
		return false
	}
	log("timing how fast this client can read streams, a few seconds (--no-calibrate skips it)")
	c, err := calibrate.Measure(ctx, calibrate.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return false // interrupted: the runner says so
		}
		doc.Notes = append(doc.Notes, "The client's ceiling could not be measured ("+err.Error()+"): no cell was checked against it.")
		log("warning: the client's ceiling could not be measured: " + err.Error())
		return true
	}
	c.Record(cl)
	// The ceiling bounds what the client can measure: said before the cells so that
	// a server near it is not mistaken for a slow one.
	log(fmt.Sprintf("this client reads up to %s tok/s on %d cores: a cell above %s tok/s would be flagged client_near_ceiling",
		report.FormatNumber("en", c.TokS, 0), c.Cores, report.FormatNumber("en", c.TokS*bench.NearCeiling, 0)))
	return true
}
