package report

import (
	"strings"
	"testing"
)

// TestPlaceReasons: reasons short in all stay on their cells; past 16 KiB each
// distinct one is listed once, numbered in the order the cells first give it, at most
// MaxReasonNotes, and the rest counted; a cell without a reason is never listed.
func TestPlaceReasons(t *testing.T) {
	short := PlaceReasons([]string{"a", "", "b", "a"})
	if n, listed := short.Number("a"); !short.Inline || listed || n != 0 || len(short.Notes) != 0 {
		t.Errorf("short reasons: %+v", short)
	}
	long := func(i int) string { return strings.Repeat("x", 700) + string(rune('A'+i%26)) + string(rune('a'+i/26)) }
	var cells []string
	for i := range 40 {
		cells = append(cells, long(i), "", long(0))
	}
	p := PlaceReasons(cells)
	if p.Inline || len(p.Notes) != MaxReasonNotes || p.More != 40-MaxReasonNotes || p.Notes[0] != long(0) || p.Notes[1] != long(1) {
		t.Fatalf("long reasons: inline %v, %d listed, %d more", p.Inline, len(p.Notes), p.More)
	}
	for i, want := range map[int]int{0: 1, 1: 2, 31: 32, 32: 0, 39: 0} {
		if n, listed := p.Number(long(i)); !listed || n != want {
			t.Errorf("reason %d: number %d (listed %v), want %d", i, n, listed, want)
		}
	}
	if _, listed := p.Number(""); listed {
		t.Errorf("no reason is listed")
	}
}
