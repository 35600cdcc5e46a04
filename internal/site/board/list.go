package board

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
)

// List lists one page of q (q.Limit runs; 50 when unset) and the offset of the next
// page, or -1 when this is the last. It asks for one run more than the page rather
// than counting them all.
func (b *Board) List(ctx context.Context, q store.Query) (rows []store.RunRecord, next int, err error) {
	if q.Limit == 0 {
		q.Limit = 50
	}
	want := q.Limit
	q.Limit++
	if rows, err = b.store.ListRuns(ctx, q); err != nil {
		return nil, -1, err
	}
	if len(rows) > want {
		return rows[:want], q.Offset + want, nil
	}
	return rows, -1, nil
}

// Run reads a stored run and its document.
func (b *Board) Run(ctx context.Context, id string) (store.RunRecord, *rundoc.Run, error) {
	rec, doc, err := b.store.Run(ctx, id)
	if err != nil {
		return rec, nil, err
	}
	var run rundoc.Run
	if err := json.Unmarshal(doc, &run); err != nil {
		return rec, nil, fmt.Errorf("decoding stored run %s: %w", id, err)
	}
	return rec, &run, nil
}
