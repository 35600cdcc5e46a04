package site

import (
	"cmp"
	"slices"

	"github.com/llmbench/llmbench/internal/site/store"
)

func sortByDecode(rs []store.RunRecord) {
	slices.SortStableFunc(rs, func(a, b store.RunRecord) int {
		av, bv := -1.0, -1.0
		if a.DecodeTokS != nil {
			av = *a.DecodeTokS
		}
		if b.DecodeTokS != nil {
			bv = *b.DecodeTokS
		}
		return cmp.Or(cmp.Compare(bv, av), cmp.Compare(a.ID, b.ID))
	})
}

func sortAPIPaths(ps []apiPath) {
	slices.SortFunc(ps, func(a, b apiPath) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method))
	})
}
