package site

import (
	"cmp"
	"slices"
)

func containsStr(xs []string, x string) bool { return slices.Contains(xs, x) }
func containsInt(xs []int, x int) bool       { return slices.Contains(xs, x) }
func sortInts(xs []int)                      { slices.Sort(xs) }

func sortAPIPaths(ps []apiPath) {
	slices.SortFunc(ps, func(a, b apiPath) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method))
	})
}
