package board

import (
	"context"
	"fmt"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
)

// BestAgainst is the run to lay run over ("my run against the best"): the first run,
// other than run itself, of the API's own answer to metric.BestParams — the best
// measured matrix run of its GPU and model — as llmbench report --against asks it.
// best is nil when the site has none.
func (b *Board) BestAgainst(ctx context.Context, run *rundoc.Run) (best *rundoc.Run, id string, err error) {
	q, ferr := Filters(metric.BestParams(run), 2)
	if ferr != nil {
		return nil, "", nil // a name over the site's limits: no stored run has it
	}
	rs, err := b.store.ListRuns(ctx, q)
	if err != nil {
		return nil, "", fmt.Errorf("finding the best run to lay %s over: %w", run.ID, err)
	}
	for _, rec := range rs {
		if rec.ID == run.ID {
			continue
		}
		if _, best, err = b.Run(ctx, rec.ID); err != nil {
			return nil, "", err
		}
		return best, rec.ID, nil
	}
	return nil, "", nil
}
