package wire

import (
	"encoding/json"
	"testing"
)

// TestRateIsANumberOrInf: a request rate is written as a number, or "inf" for a cell
// that sends every request at once, and read back as written.
func TestRateIsANumberOrInf(t *testing.T) {
	for _, c := range []struct {
		rate Rate
		json string
	}{{4, `4`}, {0.5, `0.5`}, {RateInf, `"inf"`}} {
		b, err := json.Marshal(c.rate)
		if err != nil || string(b) != c.json {
			t.Errorf("rate %v is written %s (%v), want %s", float64(c.rate), b, err, c.json)
		}
		var back Rate
		if err := json.Unmarshal(b, &back); err != nil || back != c.rate {
			t.Errorf("%s is read back as %v (%v)", b, float64(back), err)
		}
	}
	var r Rate
	if err := json.Unmarshal([]byte(`"fast"`), &r); err == nil {
		t.Errorf(`"fast" is read as a rate`)
	}
}
