package eval

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
)

// SubsetRule is how the built-in MMLU-Pro subset is chosen, written into every run
// document that uses it.
const SubsetRule = "stratified-1000-v1: per category ⌊1000·size/total⌋ questions, the rest by largest remainder (ties by name); " +
	"within a category the lowest SHA-256(\"llmbench-mmlu-pro-subset-v1/\" + question_id)"

const (
	subsetSize = 1000
	subsetSeed = "llmbench-mmlu-pro-subset-v1/"
)

// Stratified picks SubsetRule's questions from the test split, in question id order:
// each category gets its share of the 1,000 (Hamilton's largest-remainder method), and
// within it the questions whose seeded hashes sort first.
func Stratified(rows []mmluProRow) []mmluProRow {
	by := map[string][]mmluProRow{}
	var cats []string
	for _, r := range rows {
		if _, ok := by[r.Category]; !ok {
			cats = append(cats, r.Category)
		}
		by[r.Category] = append(by[r.Category], r)
	}
	slices.Sort(cats)
	quota := apportion(cats, by, len(rows))
	var out []mmluProRow
	for _, c := range cats {
		rs := by[c]
		slices.SortFunc(rs, func(a, b mmluProRow) int { return cmp.Compare(subsetKey(a.ID), subsetKey(b.ID)) })
		out = append(out, rs[:quota[c]]...)
	}
	slices.SortFunc(out, func(a, b mmluProRow) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// apportion shares subsetSize among the categories in proportion to their sizes.
func apportion(cats []string, by map[string][]mmluProRow, total int) map[string]int {
	quota := map[string]int{}
	if total == 0 {
		return quota
	}
	k := min(subsetSize, total)
	left := k
	for _, c := range cats {
		quota[c] = k * len(by[c]) / total
		left -= quota[c]
	}
	byRemainder := slices.Clone(cats)
	slices.SortStableFunc(byRemainder, func(a, b string) int {
		return cmp.Compare(k*len(by[b])%total, k*len(by[a])%total)
	})
	for _, c := range byRemainder[:left] {
		quota[c]++
	}
	return quota
}

func subsetKey(id int64) string {
	s := sha256.Sum256([]byte(subsetSeed + strconv.FormatInt(id, 10)))
	return hex.EncodeToString(s[:])
}
