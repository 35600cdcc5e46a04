package sim

import (
	"strings"
	"testing"
)

// TestOptionsConfig: a preset with its overrides, and the catalog setup's refusals.
func TestOptionsConfig(t *testing.T) {
	cfg, err := Options{Preset: "tiny", Speed: 3, Seed: 7, SeedSet: true, ServedModel: "m"}.Config()
	if err != nil || cfg.Speed != 3 || cfg.Seed != 7 || cfg.ServedModel != "m" {
		t.Errorf("tiny with overrides: %+v, %v", cfg, err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Preset: "tiny", PresetSet: true, GPU: "rtx-3090"}, "--preset cannot be combined"},
		{Options{GPU: "rtx-3090"}, "needs --gpu, --model and --quant"},
	} {
		if _, err := c.o.Config(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.o, err, c.want)
		}
	}
	if !strings.Contains(PresetHelp(), "  tiny ") {
		t.Errorf("PresetHelp lacks tiny:\n%s", PresetHelp())
	}
}
