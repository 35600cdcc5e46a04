package perf

import "testing"

// TestEraEfficiency checks a dated build resolves to its date and ages the factors,
// a date inside a generation's span takes that generation's factors, and the current
// era is the fit itself.
func TestEraEfficiency(t *testing.T) {
	c := MustLoad()
	e, err := c.Engine("llama.cpp")
	if err != nil {
		t.Fatal(err)
	}
	cur, ch, err := c.EraEfficiency(e, "nvidia", "")
	if err != nil || ch.Family != "llama.cpp-cuda" || ch.Slowdown != 1 {
		t.Fatalf("current: %+v, %v", ch, err)
	}
	old, ch, err := c.EraEfficiency(e, "nvidia", "b6700")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Date != "2025-09" || ch.Version != "b6609" || !ch.Aged || !(ch.Slowdown > 1) {
		t.Errorf("b6700: %+v; want dated 2025-09 by b6609, aged", ch)
	}
	if !(old.OverheadPerLayerUs > cur.OverheadPerLayerUs) || !(old.Compute < cur.Compute) || old.Bandwidth != cur.Bandwidth {
		t.Errorf("b6700's factors %+v against current %+v: want slower own work, the same bandwidth", old, cur)
	}
	if _, ch, err = c.EraEfficiency(e, "nvidia", "2023-12"); err != nil || ch.Family != "llama.cpp-cuda@2023" {
		t.Errorf("2023-12: %+v, %v; want llama.cpp-cuda@2023", ch, err)
	}
	if _, ch, err = c.EraEfficiency(e, "amd", "2023-12"); err != nil || ch.Family != "llama.cpp-amd" || !ch.Aged {
		t.Errorf("AMD 2023-12: %+v, %v; want llama.cpp-amd aged (no AMD rows of 2023)", ch, err)
	}
	for _, bad := range []string{"b100", "0.1.0", "soon"} {
		if _, _, err := c.EraEfficiency(e, "nvidia", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
