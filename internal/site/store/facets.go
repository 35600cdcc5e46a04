package store

import (
	"context"
	"fmt"
)

// Facet is one value of a filter with the number of runs that have it.
type Facet struct {
	Value string `json:"value"`
	Runs  int    `json:"runs"`
}

// Facets are the values each leaderboard filter can take.
type Facets struct {
	Models, GPUs, Engines, Quantizations, Profiles, Families, Modes []Facet
}

// Facets lists the distinct models, GPUs, engines, quantizations and profiles.
func (s *Store) Facets(ctx context.Context) (Facets, error) {
	var f Facets
	rows, err := queryRows(ctx, s.db, `SELECT dim, name, runs FROM run_groups ORDER BY dim, name`, nil, func(sc scanner) (dimFacet, error) {
		var d dimFacet
		err := sc.Scan(&d.dim, &d.Value, &d.Runs)
		return d, err
	})
	if err != nil {
		return f, fmt.Errorf("listing filter values: %w", err)
	}
	byDim := map[string]*[]Facet{"model": &f.Models, "gpu": &f.GPUs, "engine": &f.Engines, "quantization": &f.Quantizations,
		"profile": &f.Profiles, "family": &f.Families, "mode": &f.Modes}
	for _, d := range rows {
		if vs := byDim[d.dim]; vs != nil && d.Value != "" {
			*vs = append(*vs, d.Facet)
		}
	}
	for _, vs := range byDim {
		*vs = mergeFacets(*vs)
	}
	return f, nil
}

// dimFacet is a row of run_groups as a facet of its dimension.
type dimFacet struct {
	dim string
	Facet
}

// scanFacet reads a value and its run count.
func scanFacet(sc scanner) (Facet, error) {
	var f Facet
	err := sc.Scan(&f.Value, &f.Runs)
	return f, err
}
