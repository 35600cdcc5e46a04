package rundoc

import (
	"reflect"
	"testing"

	seedcopy "github.com/llmbench/llmbench/internal/seed"
)

func TestParseTokens(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "8K": 8192, "56k": 57344, "8192": 8192, "0.5K": 512, " 16K ": 16384} {
		got, err := ParseTokens(in)
		if err != nil || got != want {
			t.Errorf("ParseTokens(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "K", "-1", "1.5", "abc", "8KB"} {
		if _, err := ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
		}
	}
}

func TestSeedRoundTrip(t *testing.T) {
	seed, err := ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	c := seed.Cell(0, 1)
	if c.TotalTokS != 48.2 || c.OutputTokens != 1445 || c.TTFTMs != 85 {
		t.Errorf("seed cell 0×1 decoded as %+v %+v", c.DecodeFigures, c.WindowStats)
	}
	if seed.Cell(0, 16).DecodeFigures != nil {
		t.Error("an over-capacity cell got figures")
	}
}

// TestSeedConfigIsTheSeeds: the one seed plan is the seed document's own.
func TestSeedConfigIsTheSeeds(t *testing.T) {
	seed, err := ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	if got := SeedConfig(); !reflect.DeepEqual(got, seed.Config) {
		t.Errorf("SeedConfig() = %+v, the seed's config is %+v", got, seed.Config)
	}
	c := SeedConfig()
	c.Contexts[0] = 1
	if SeedConfig().Contexts[0] != 0 {
		t.Error("SeedConfig shares its slices between calls")
	}
}
