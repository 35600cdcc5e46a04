package rundoc

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestRateJSON(t *testing.T) {
	rates, err := ParseRateList("1, 2.5,inf")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rates)
	if string(b) != `[1,2.5,"inf"]` {
		t.Errorf("rates marshal as %s", b)
	}
	var back []Rate
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, rates) {
		t.Errorf("rates read back as %v (%v)", back, err)
	}
	for _, bad := range []string{"0", "-1", "x", "NaN"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("rate %q accepted", bad)
		}
	}
}
