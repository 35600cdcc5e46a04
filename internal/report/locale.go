package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
)

// FormatNumber writes v with decimals digits after the point and the locale's digit
// grouping: 2163 → "2,163.0" with one decimal. English and Japanese both group by
// thousands with "," and use "." for the decimal point.
func FormatNumber(lang string, v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// FormatInt writes a whole number with the locale's grouping: 9878 → "9,878".
func FormatInt(lang string, n int) string { return FormatNumber(lang, float64(n), 0) }

// FormatMs writes a duration in milliseconds: "3,808 ms" (decimals digits).
func FormatMs(lang string, ms float64, decimals int) string {
	return locale.T(lang, "ms", FormatNumber(lang, ms, decimals))
}

// FormatSeconds writes a duration in seconds with one decimal: "30.0 s" (ja "30.0 秒").
func FormatSeconds(lang string, s float64) string {
	return locale.T(lang, "s", FormatNumber(lang, s, 1))
}

// FormatGB writes a memory size the way the seed page does, in binary gigabytes
// labelled GB: 25769803776 → "24 GB". Sizes that are not whole keep one decimal.
func FormatGB(lang string, bytes int64) string {
	gb := float64(bytes) / (1 << 30)
	if math.Abs(gb-math.Round(gb)) < 0.05 {
		return FormatNumber(lang, math.Round(gb), 0) + " GB"
	}
	return FormatNumber(lang, gb, 1) + " GB"
}

// FormatPercent writes a ratio (0.97) as a percentage ("97%").
func FormatPercent(lang string, ratio float64) string {
	return FormatNumber(lang, ratio*100, 0) + "%"
}
