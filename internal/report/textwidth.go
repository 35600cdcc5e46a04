package report

import (
	"strings"
	"unicode"
)

// A chart is drawn in a box of fixed units (chartW) that the page scales to its
// width: at about 560 px on a wide screen its 12-unit text reads at 10–11 px, but a
// phone halves it, so there the page draws the text larger (site.css and the report's
// style): ticks and bar texts at up to textFontMax units, axis labels and legends at
// up to labelFontMax. Layout makes room for those sizes, and shortens a text that
// would not fit them, so that nothing runs off the chart's edge at either.
const (
	textFontMax  = 20
	labelFontMax = 16
)

// textWidth is how wide s is drawn at size, in the chart's units, erring wide for
// the widest common fonts (DejaVu Sans, Noto Sans CJK): a wide (CJK) character, and
// the ellipsis a CJK font draws full width, take a whole em, a digit 0.64, a comma,
// point or space 0.32, a lower-case letter 0.62, anything else 0.72.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case wideRune(r) || r == '…':
			w += 1
		case r >= '0' && r <= '9':
			w += 0.64
		case r == ',' || r == '.' || r == ' ':
			w += 0.32
		case r >= 'a' && r <= 'z':
			w += 0.62
		default:
			w += 0.72
		}
	}
	return w * size
}

func wideRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0xFF00 && r <= 0xFFEF || r >= 0x3000 && r <= 0x30FF
}

// fitText is s, shortened with "…" to fit width at size.
func fitText(s string, width, size float64) string {
	if textWidth(s, size) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && textWidth(string(r)+"…", size) > width {
		r = r[:len(r)-1]
	}
	return strings.TrimRight(string(r), " ") + "…"
}
