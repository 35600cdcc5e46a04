package session

import (
	"errors"
	"fmt"
	"time"
)

// Config is one run as the command line gives it: every value a flag of
// `llmbench run` sets (lists and sizes as the flag's text: the session parses and
// checks them, naming the flag in the error; run's flags hold the defaults), and
// what depends on which flags were given, settled by Given. Format is checked here,
// with the plan, and printed by the caller; Quick's small plan is Given's.
type Config struct {
	Endpoint, Model, APIKey, API   string
	Contexts, Concurrency, Prefill string
	Duration                       time.Duration
	MaxOutput                      int
	PrefillMode                    string
	KVCapacity                     string
	Out, Resume, Events            string
	Seed                           int64
	Quick                          bool
	Preset                         string
	StartTimeout                   time.Duration
	Submitter, LaunchCommand       string
	Title                          string
	Launch, Hardware               string
	LaunchTimeout                  time.Duration
	Format                         string
	Repeat                         int
	Fit, DryRun                    bool
	Settle, SettleTimeout          time.Duration
	NoCalibrate                    bool
	Timeslice                      time.Duration
	Telemetry, TelemetryToken      string
	Price                          string
	Rate                           OpenLoop
	Workload                       Workload
	// ToolVersion is llmbench's version, recorded in a new document.
	ToolVersion string

	// What the user gave rather than took by default: a resumed run keeps its
	// document's emulator preset unless --preset is given, and the command that
	// resumes an interrupted run repeats --telemetry and --price-per-hour only when
	// they were given.
	PresetGiven, TelemetryGiven, PriceGiven bool
}

// OpenLoop is the open-loop part of Config: with Rates or FindMaxRate, the run
// measures one cell per request rate instead of the concurrency matrix.
type OpenLoop struct {
	Rates          string
	Arrival        string
	MaxConcurrency int
	InputLen       int
	OutputLen      int
	LenDist        string
	PrefixShare    float64
	Requests       int
	DrainTimeout   time.Duration
	SLO            string
	Goodput        []string // vLLM's --goodput ttft:500 tpot:50
	Target         float64  // share of requests that must meet the SLO (bench.DefaultSLOTarget)
	TargetURL      string   // --target given a URL (GuideLLM's name for the server)
	FindMaxRate    bool
	SearchSteps    int
	Precision      float64
	// Replay: the run replays a trace (--trace), whose timestamps are its schedule:
	// an open-loop run of one cell without --rate.
	Replay bool
}

// The quick plan a new user sees in about a minute, closed and open loop: small
// requests so that the emulator saturates within a few seconds a cell.
const (
	QuickContexts     = "0,8K,16K"
	QuickConcurrency  = "1,2,4,8,16"
	QuickPrefill      = "4K,8K,16K"
	quickDuration     = 3 * time.Second
	quickRateDuration = 5 * time.Second
	quickInputLen     = 512
	quickOutputLen    = 64
	// A workload's quick matrix (sessions, a dataset): context 0 only.
	quickWorkloadConcurrency = "1,4,16"
	quickWorkloadDuration    = 8 * time.Second
	quickWorkloadOutput      = 32
)

// RateFlags are run's open-loop flags.
var RateFlags = []string{"rate", "arrival", "max-concurrency", "input-len", "output-len", "len-dist", "prefix-share",
	"requests", "drain-timeout", "slo", "goodput", "target", "find-max-rate", "max-rate-steps", "rate-precision"}

// PlanFlags are the flags that define the plan; they cannot change on --resume.
var PlanFlags = append(append([]string{"contexts", "concurrency", "prefill", "duration", "max-output", "prefill-mode", "api", "seed", "quick", "kv-capacity", "fit", "repeat"}, RateFlags...), workloadPlanFlags...)

// matrixFlags size the closed loop's requests; an open-loop run refuses them.
var matrixFlags = []string{"contexts", "concurrency", "prefill", "prefill-mode", "max-output"}

// active reports whether the config asks for an open-loop run.
func (o *OpenLoop) active() bool { return o.Rates != "" || o.FindMaxRate || o.Replay }

// Given settles what depends on which flags the user gave (given is the flag set's
// Changed, by flag name): it refuses flags that would silently do nothing (plan
// flags on --resume, one loop's flags in the other), fills --quick's plan for the
// plan flags not given, and records the Given fields.
func (c *Config) Given(given func(flag string) bool) error {
	c.PresetGiven, c.TelemetryGiven, c.PriceGiven = given("preset"), given("telemetry"), given("price-per-hour")
	if c.Resume != "" {
		for _, name := range PlanFlags {
			if given(name) && !(name == "target" && c.Rate.TargetURL != "") {
				return fmt.Errorf("--%s cannot be combined with --resume: the plan comes from %s", name, c.Resume)
			}
		}
		return nil
	}
	c.Rate.Replay = c.Workload.Trace != ""
	if c.Rate.Replay && (c.Rate.Rates != "" || c.Rate.FindMaxRate) {
		return errors.New("--trace replays its requests on their own timestamps: it takes no --rate or --find-max-rate (--trace-speed plays them faster)")
	}
	if err := c.Rate.checkGiven(given); err != nil {
		return err
	}
	if err := c.Workload.check(c.API, c.Rate.active()); err != nil {
		return err
	}
	if c.Workload.active() && !c.Rate.active() {
		// A workload's prompts are its own: the matrix has one row, context 0, and no
		// prefill rows.
		if given("contexts") && c.Contexts != "0" || given("prefill") && c.Prefill != "" {
			return errors.New("a workload's prompts are its own (--dataset, --turns): the matrix measures it at --contexts 0 and no --prefill rows; size the requests with --max-output")
		}
		c.Contexts, c.Prefill = "0", ""
	}
	if c.Quick {
		c.applyQuick(given)
	}
	return nil
}

// checkGiven refuses open-loop flags without --rate or --find-max-rate, and matrix
// flags with them.
func (o *OpenLoop) checkGiven(given func(string) bool) error {
	if o.active() {
		for _, name := range matrixFlags {
			if given(name) {
				return fmt.Errorf("--%s is a matrix flag: an open-loop run (--rate, --find-max-rate) sizes requests with --input-len and --output-len", name)
			}
		}
		return nil
	}
	for _, name := range RateFlags {
		if name == "target" && o.TargetURL != "" {
			continue // the server, as GuideLLM names it
		}
		if name != "rate" && name != "find-max-rate" && given(name) {
			return fmt.Errorf("--%s needs --rate or --find-max-rate", name)
		}
	}
	return nil
}

// applyQuick is --quick's small plan, for the plan flags not given.
func (c *Config) applyQuick(given func(string) bool) {
	if c.Rate.active() {
		if !given("duration") {
			c.Duration = quickRateDuration
		}
		if !given("input-len") {
			c.Rate.InputLen = quickInputLen
		}
		if !given("output-len") {
			c.Rate.OutputLen = quickOutputLen
		}
		return
	}
	quick := []struct {
		flag string
		v    *string
		to   string
	}{{"contexts", &c.Contexts, QuickContexts}, {"concurrency", &c.Concurrency, QuickConcurrency}, {"prefill", &c.Prefill, QuickPrefill}}
	duration := quickDuration
	if c.Workload.active() {
		// A workload's matrix is one row of fewer, longer cells, its answers short:
		// a session's turns come round within the window.
		quick = quick[1:2]
		quick[0].to, duration = quickWorkloadConcurrency, quickWorkloadDuration
		if !given("max-output") {
			c.MaxOutput = quickWorkloadOutput
		}
	}
	for _, q := range quick {
		if !given(q.flag) {
			*q.v = q.to
		}
	}
	if !given("duration") {
		c.Duration = duration
	}
}
