package store

import (
	"context"
	"fmt"
)

// Authors lists the names documents give as their author, with their run counts.
func (s *Store) Authors(ctx context.Context) ([]Facet, error) {
	out, err := queryRows(ctx, s.db, `SELECT author, COUNT(*) FROM runs WHERE author <> '' GROUP BY author ORDER BY author LIMIT 500`, nil, scanFacet)
	if err != nil {
		return nil, fmt.Errorf("listing authors: %w", err)
	}
	return out, nil
}
