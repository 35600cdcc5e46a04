package session

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func givenOf(names ...string) func(string) bool {
	return func(name string) bool { return slices.Contains(names, name) }
}

// TestGivenQuick: --quick fills the plan flags not given, closed loop and open loop.
func TestGivenQuick(t *testing.T) {
	c := Config{Quick: true, Contexts: "0,16K", Concurrency: "1,2", Prefill: "8K", Duration: 30 * time.Second}
	if err := c.Given(givenOf("concurrency")); err != nil {
		t.Fatal(err)
	}
	if c.Contexts != QuickContexts || c.Concurrency != "1,2" || c.Prefill != QuickPrefill || c.Duration != 3*time.Second {
		t.Errorf("quick matrix: %q %q %q %s", c.Contexts, c.Concurrency, c.Prefill, c.Duration)
	}
	r := Config{Quick: true, Duration: 30 * time.Second, Rate: OpenLoop{Rates: "1", InputLen: 1024, OutputLen: 256}}
	if err := r.Given(givenOf("rate", "output-len")); err != nil {
		t.Fatal(err)
	}
	if r.Duration != 5*time.Second || r.Rate.InputLen != 512 || r.Rate.OutputLen != 256 {
		t.Errorf("quick open loop: %s, %d in, %d out", r.Duration, r.Rate.InputLen, r.Rate.OutputLen)
	}
}

// TestGivenRefuses: flags that would do nothing are refused, with the flag named.
func TestGivenRefuses(t *testing.T) {
	for _, tc := range []struct {
		c     Config
		given []string
		want  string
	}{
		{Config{Resume: "x.json"}, []string{"contexts"}, "--contexts cannot be combined with --resume: the plan comes from x.json"},
		{Config{}, []string{"slo"}, "--slo needs --rate or --find-max-rate"},
		{Config{Rate: OpenLoop{Rates: "1"}}, []string{"rate", "concurrency"}, "--concurrency is a matrix flag"},
	} {
		c := tc.c
		if err := c.Given(givenOf(tc.given...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v given: %v, want %q", tc.given, err, tc.want)
		}
	}
	// --target URL names the server, on --resume too.
	c := Config{Resume: "x.json", Rate: OpenLoop{TargetURL: "http://a"}}
	if err := c.Given(givenOf("target", "preset", "telemetry")); err != nil || !c.PresetGiven || !c.TelemetryGiven || c.PriceGiven {
		t.Errorf("--resume --target URL: %v; given preset %v telemetry %v price %v", err, c.PresetGiven, c.TelemetryGiven, c.PriceGiven)
	}
}

func TestNormalizeSLO(t *testing.T) {
	for in, want := range map[string]string{"ttft:500 tpot:50": "ttft=500,tpot=50", "ttft=500ms,tpot=50ms": "ttft=500ms,tpot=50ms", "ttft:500ms": "ttft=500ms"} {
		if got := normalizeSLO(in); got != want {
			t.Errorf("normalizeSLO(%q) = %q, want %q", in, got, want)
		}
	}
	both := OpenLoop{SLO: "ttft=1s", Goodput: []string{"ttft:500"}}
	if _, err := both.sloSpec(); err == nil {
		t.Error("--slo and --goodput both: no error")
	}
}
