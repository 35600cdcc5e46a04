package site

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

var (
	pickerSelRE = regexp.MustCompile(`<td class="sel"><a [^>]*aria-current="true"[^>]*>([0-9,]+)</a>`)
	boardRowRE  = regexp.MustCompile(`<tr data-id="`)
)

// pickerAndBoard reads the picker's count at the chosen cell and how many entries the
// board beside it ranks.
func pickerAndBoard(t *testing.T, ts *testSite, path string) (picker, ranked int) {
	t.Helper()
	_, body := ts.get(t, path)
	m := pickerSelRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("%s: no chosen cell in the picker", path)
	}
	picker, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if i := strings.Index(body, `id="board"`); i >= 0 {
		ranked = len(boardRowRE.FindAllStringIndex(body[i:], -1))
	}
	return picker, ranked
}

// TestPickerCountsWhatTheBoardRanks (issue 24 item 8): the cell picker's counts follow
// the filters and "include emulated": it said 3 where the table ranked 1.
func TestPickerCountsWhatTheBoardRanks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		ts.mustSubmit(t, seedDoc(t)) // measured, RTX 3090
		ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
			r.ID, r.Title, r.Status = "emulated-3090", "Emulated 3090", rundoc.RunEmulated
		}))
		ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
			r.ID, r.Title = "measured-4090", "Measured 4090"
			r.Hardware.GPUs[0].Name = "RTX 4090"
		}))
		for _, tc := range []struct {
			path string
			want int
		}{
			{"/?metric=total_tok_s&context=0&concurrency=1", 2},
			{"/?metric=total_tok_s&context=0&concurrency=1&kind=all", 3},
			{"/?metric=total_tok_s&context=0&concurrency=1&gpu=RTX+3090", 1},
			{"/?metric=total_tok_s&context=0&concurrency=1&gpu=rtx+3090&kind=all", 2},
			{"/?metric=total_tok_s&context=0&concurrency=1&gpu=RTX+4090&kind=all", 1},
			{"/?metric=prompt_tok_s&context=32K&kind=all", 3},
			{"/?metric=prompt_tok_s&context=32K&gpu=RTX+3090", 1},
		} {
			picker, ranked := pickerAndBoard(t, ts, tc.path)
			if picker != tc.want || ranked != tc.want {
				t.Errorf("%s: the picker says %d runs, the board ranks %d; want %d", tc.path, picker, ranked, tc.want)
			}
		}
	})
}
