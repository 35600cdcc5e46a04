package store

import (
	"context"
	"fmt"
)

// A model family (names.Family) groups the runs of one base model whatever name or
// format it was served under; these are the size filters over it and the queries
// that list families and their models from run_groups and runs.

// SizeBucket is a range of model sizes the leaderboard filters by.
type SizeBucket struct {
	Name     string  // the URL's value: "10-20"
	Min, Max float64 // billions of parameters, Min inclusive, Max exclusive (0 = no bound)
}

// SizeBuckets are the sizes offered as filters.
var SizeBuckets = []SizeBucket{
	{"0-10", 0, 10}, {"10-20", 10, 20}, {"20-40", 20, 40}, {"40-100", 40, 100}, {"100-", 100, 0},
}

// SizeBucketByName finds a size bucket.
func SizeBucketByName(name string) (SizeBucket, bool) {
	for _, b := range SizeBuckets {
		if b.Name == name {
			return b, true
		}
	}
	return SizeBucket{}, false
}

// Families lists every model family with its run count and best measured figures.
func (s *Store) Families(ctx context.Context) ([]GroupStat, error) { return s.groups(ctx, "family") }

// FamilyStat returns the summary of one family's runs; ErrNotFound when it has none.
func (s *Store) FamilyStat(ctx context.Context, name string) (GroupStat, error) {
	return s.group(ctx, "family", name)
}

// FamilyModels lists the model names stored under a family, with their run counts.
func (s *Store) FamilyModels(ctx context.Context, family string) ([]Facet, error) {
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT model, COUNT(*) FROM runs WHERE family = ? GROUP BY model ORDER BY model`), []any{family}, scanFacet)
	if err != nil {
		return nil, fmt.Errorf("listing the models of family %s: %w", family, err)
	}
	return out, nil
}
