package report

import (
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestMatrixAxesKeepThePlanThenAddTheRest: the plan's order stays (a plan may list
// 8K before 0), a cell beyond the plan comes after it, ascending, and a second run's
// contexts that the first did not plan join those, so that several runs share rows.
func TestMatrixAxesKeepThePlanThenAddTheRest(t *testing.T) {
	a := &rundoc.Run{Config: rundoc.Config{Contexts: []int{8192, 0, 8192}, Concurrency: []int{1, 4}},
		Decode: []rundoc.DecodeCell{{Context: 32768, Concurrency: 16}, {Context: 0, Concurrency: 2}}}
	b := &rundoc.Run{Config: rundoc.Config{Contexts: []int{0, 4096}, Concurrency: []int{1, 8}}}
	for _, tc := range []struct {
		runs           []*rundoc.Run
		contexts, conc []int
	}{
		{[]*rundoc.Run{a}, []int{8192, 0, 32768}, []int{1, 4, 2, 16}},
		{[]*rundoc.Run{a, b}, []int{8192, 0, 4096, 32768}, []int{1, 4, 2, 8, 16}},
		{[]*rundoc.Run{b, a}, []int{0, 4096, 8192, 32768}, []int{1, 8, 2, 4, 16}},
	} {
		contexts, conc := MatrixAxes(tc.runs...)
		if !slices.Equal(contexts, tc.contexts) || !slices.Equal(conc, tc.conc) {
			t.Errorf("MatrixAxes = %v × %v, want %v × %v", contexts, conc, tc.contexts, tc.conc)
		}
	}
}

// TestMatrixShadeIsLogarithmic: 10, 100 and 1,000 tok/s sit at 0, ½ and 1 of the scale
// (a linear scale would put 100 at 0.09); a cell without figures has no shade, and
// every cell's status is said in words.
func TestMatrixShadeIsLogarithmic(t *testing.T) {
	fig := func(x float64) *rundoc.DecodeFigures { return &rundoc.DecodeFigures{TotalTokS: x, TTFTMs: 50} }
	run := &rundoc.Run{Config: rundoc.Config{Contexts: []int{0}, Concurrency: []int{1, 8, 64, 128}}, Decode: []rundoc.DecodeCell{
		{Context: 0, Concurrency: 1, Status: rundoc.StatusValid, DecodeFigures: fig(10)},
		{Context: 0, Concurrency: 8, Status: rundoc.StatusValid, DecodeFigures: fig(100)},
		{Context: 0, Concurrency: 64, Status: rundoc.StatusValid, DecodeFigures: fig(1000)},
		{Context: 0, Concurrency: 128, Status: rundoc.StatusPending},
	}}
	m := NewMatrix(run, []int{0}, []int{1, 8, 64, 128}, "ja")
	want := []float64{0, 0.5, 1, 0}
	for j, c := range m.Cells[0] {
		if d := c.Shade - want[j]; d > 1e-9 || d < -1e-9 {
			t.Errorf("cell %d×%d: shade %v, want %v", c.Context, c.Concurrency, c.Shade, want[j])
		}
		if c.Doc != run.Cell(c.Context, c.Concurrency) {
			t.Errorf("cell %d×%d: Doc is not the document's cell", c.Context, c.Concurrency)
		}
	}
	if got := m.Cells[0][3].StatusStr; got != "未実行" {
		t.Errorf("a pending cell's status in Japanese = %q, want 未実行", got)
	}
}
