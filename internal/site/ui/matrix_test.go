package ui

import (
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
)

// TestRunMatrixIsTheReports (issue 39): the run page's matrix is the report's — its
// rows in the plan's order with a cell beyond the plan after them (not sorted), its
// shade on the report's log scale (100 tok/s between 10 and 1,000 is the middle step,
// where a linear scale put it in the first), and each status in the report's words.
func TestRunMatrixIsTheReports(t *testing.T) {
	fig := func(x float64) *rundoc.DecodeFigures { return &rundoc.DecodeFigures{TotalTokS: x, TTFTMs: 50} }
	run := &rundoc.Run{Config: rundoc.Config{Contexts: []int{8192, 0}, Concurrency: []int{1, 8, 64}}, Decode: []rundoc.DecodeCell{
		{Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, DecodeFigures: fig(10)},
		{Context: 8192, Concurrency: 8, Status: rundoc.StatusValid, DecodeFigures: fig(100)},
		{Context: 8192, Concurrency: 64, Status: rundoc.StatusValid, DecodeFigures: fig(1000)},
		{Context: 0, Concurrency: 1, Status: rundoc.StatusPending},
		{Context: 0, Concurrency: 8, Status: rundoc.StatusOverCapacity},
		{Context: 0, Concurrency: 64, Status: rundoc.StatusInvalid, DecodeFigures: fig(500), Reason: "too few tokens"},
		{Context: 4096, Concurrency: 1, Status: rundoc.StatusFailed, Reason: "timed out"},
	}}
	m := newRunView(store.RunRecord{}, run, "en").Matrix
	var rows []string
	for _, r := range m.Rows {
		rows = append(rows, r.Context)
	}
	if len(rows) != 3 || rows[0] != "8K" || rows[1] != "0" || rows[2] != "4K" {
		t.Fatalf("rows %v, want [8K 0 4K]: the plan's order, then the cell beyond it", rows)
	}
	want := [][2]string{
		{"valid shade-0", "10.0"}, {"valid shade-2", "100.0"}, {"valid shade-4", "1,000.0"},
		{"failed", "Pending"}, {"over", "Over capacity"}, {"failed", "Invalid"},
		{"failed", "Failed"}, {"missing", "—"}, {"missing", "—"},
	}
	for i, r := range m.Rows {
		for j, c := range r.Cells {
			if w := want[i*3+j]; c.Class != w[0] || c.Main != w[1] {
				t.Errorf("%s × %d: %q %q, want %q %q", r.Context, m.Concurrency[j], c.Class, c.Main, w[0], w[1])
			}
		}
	}
}
