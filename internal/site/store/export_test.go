package store

import "context"

// ForgetIndexForTesting drops every metric value and the index signature, as a store
// made before the metric registry (or before a metric was added) looks.
func (s *Store) ForgetIndexForTesting(ctx context.Context) error {
	for _, q := range []string{`DELETE FROM run_metrics`, `DELETE FROM metric_cells`, `DELETE FROM site_meta`,
		`UPDATE runs SET family = '', params_b = 0, author = '', mode = 'matrix'`, `DELETE FROM run_groups WHERE dim IN ('family', 'mode')`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// DecodeCellsForTesting is decodeCells, for the test that adds a metric.
var DecodeCellsForTesting = decodeCells
