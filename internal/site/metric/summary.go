package metric

import (
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/names"
	"github.com/llmbench/llmbench/internal/perf"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Summary is what the site ranks and filters runs by: a few figures taken from the run
// document when it is stored, so that listing 100,000 runs never parses a document.
type Summary struct {
	Kind           string // measured, emulated or predicted
	Title          string
	Model          string
	GPU            string
	GPUCount       int
	VRAMGB         *float64 // total over all GPUs, in GB of 2^30 bytes (as the seed writes "24 GB")
	Engine         string
	EngineVersion  string
	Quantization   string
	Profile        string
	DecodeTokS     *float64 // single-stream decode tok/s at context 0
	PeakTokS       *float64 // the highest total tok/s of any valid cell
	Prefill32KTokS *float64 // prefill tok/s at a 32K context
	TokSPerGB      *float64 // PeakTokS per GB of VRAM
	// Family is the base model (Family of Model) and ParamsB the size its name states
	// (0 when it states none).
	Family  string
	ParamsB float64
	// Author is who the document says made the run (its own "submitter" field): text
	// the submitter typed, never checked; the site shows it apart from Submitter.
	Author string
	// Mode is ModeMatrix (the concurrency matrix) or ModeRate (open-loop rate cells,
	// llmbench run --rate).
	Mode string
	// Cells holds every registered metric's values (CellMetrics), for run_metrics.
	Cells []CellValue
	// Accuracy is the run's finished evaluations, for the store's run_accuracy (accuracy.go).
	Accuracy []AccuracyScore
	// DecodeCI is DecodeTokS's 95% interval, the cell's total_tok_s_ci; nil when the
	// run gives none.
	DecodeCI *stats.Interval
}

// A run's mode: what it measured.
const (
	ModeMatrix = "matrix" // the matrix of context × concurrency (and prefill)
	ModeRate   = "rate"   // open-loop cells, one per request rate
)

// ModeOf says whether r is an open-loop run (a rate plan or rate cells) or a matrix run.
func ModeOf(r *rundoc.Run) string {
	if r.Config.Rate != nil || len(r.Rate) > 0 || r.MaxRate != nil {
		return ModeRate
	}
	return ModeMatrix
}

// Metric names a figure runs can be ranked by.
type Metric string

const (
	MetricDecode     Metric = "decode"      // single-stream decode tok/s at context 0
	MetricPeak       Metric = "peak"        // peak total tok/s
	MetricPrefill32K Metric = "prefill_32k" // prefill tok/s at 32K
	MetricPerGB      Metric = "per_gb"      // peak tok/s per GB of VRAM
)

// Metrics lists the rankable figures in the order the leaderboard offers them.
var Metrics = []Metric{MetricDecode, MetricPeak, MetricPrefill32K, MetricPerGB}

// Valid reports whether m is one of Metrics.
func (m Metric) Valid() bool { return slices.Contains(Metrics, m) }

// ModelName is how the site names a run's model: the model id (the weights) when the
// run has one, else the name it was served under.
func ModelName(m rundoc.Model) string {
	if strings.TrimSpace(m.ID) != "" {
		return m.ID
	}
	return m.ServedName
}

// GPUName is how the site names a run's accelerator; a CPU-only run is named by its CPU.
func GPUName(h rundoc.Hardware) (name string, count int) {
	if len(h.GPUs) > 0 {
		count = 0
		for _, g := range h.GPUs {
			count += max(g.Count, 1)
		}
		return h.GPUs[0].Name, count
	}
	if h.CPU != nil && h.CPU.Model != "" {
		return h.CPU.Model, 0
	}
	return "unknown", 0
}

// Summarize takes the ranking figures out of a run document.
func Summarize(r *rundoc.Run) Summary {
	s := summarizeFigures(r)
	s.Kind = r.Kind()
	s.Title = strings.TrimSpace(r.Title)
	s.Model = strings.TrimSpace(ModelName(r.Model))
	s.Engine = strings.TrimSpace(r.Engine.Name)
	s.EngineVersion = strings.TrimSpace(r.Engine.Version)
	s.Quantization = CatalogQuantName(r.Engine.Quantization)
	s.Profile = ProfileOf(r.Config)
	s.Author = strings.TrimSpace(r.Submitter)
	s.Family, s.ParamsB = names.Family(s.Model)
	s.Mode = ModeOf(r)
	s.GPU, s.GPUCount = GPUName(r.Hardware)
	s.GPU = CatalogGPUName(s.GPU)
	if len(r.Hardware.GPUs) == 0 && r.Hardware.CPU == nil && (r.Hardware.Type == "emulated" || s.Kind == "emulated") {
		// The emulator runs on no particular hardware; name it by its preset.
		s.GPU = "Emulated"
		if r.Engine.Preset != "" {
			s.GPU += " (" + r.Engine.Preset + ")"
		}
	}
	if s.Title == "" {
		s.Title = s.Model + " on " + s.GPU
	}
	s.Cells = cellValues(r)
	s.Accuracy = accuracyScores(r)
	return s
}

// CatalogGPUName is the catalog's name for a GPU as a tool printed it, so that
// nvidia-smi's "NVIDIA GeForce RTX 4090" and a document's "RTX 4090" are one GPU of
// the site (perf.Catalog.GPUName); a GPU the catalog does not hold keeps its name.
func CatalogGPUName(name string) string {
	c, err := perf.Load()
	if err != nil {
		return strings.TrimSpace(name)
	}
	return c.GPUName(name)
}

// CatalogQuantName is the catalog's name for a weight format as a run labels it, so
// that Ollama's "Q4_K_M" and a prediction's "GGUF Q4_K_M", or "AWQ" and "AWQ INT4
// g128", are one quantization of the site (perf.Catalog.QuantName); a label the
// catalog does not hold, or that could be several of its formats, keeps its name.
func CatalogQuantName(label string) string {
	c, err := perf.Load()
	if err != nil {
		return strings.TrimSpace(label)
	}
	return c.QuantName(label)
}

// summarizeFigures is the summary's figures: the ranking columns and the VRAM they
// are divided by.
func summarizeFigures(r *rundoc.Run) Summary {
	var s Summary
	if vram, ok := rundoc.TotalVRAMBytes(r.Hardware); ok && vram > 0 {
		s.VRAMGB = ptr(float64(vram) / (1 << 30))
	}
	for _, c := range r.Decode {
		if !hasFigures(c) || !Measured(c.TotalTokS) {
			continue
		}
		if c.Context == 0 && c.Concurrency == 1 {
			s.DecodeTokS = ptr(c.TotalTokS)
			s.DecodeCI = decodeCI(c)
		}
		if s.PeakTokS == nil || c.TotalTokS > *s.PeakTokS {
			s.PeakTokS = ptr(c.TotalTokS)
		}
	}
	for _, p := range r.Prefill {
		if p.Context == 32*rundoc.K && p.PrefillFigures != nil && (p.Status == rundoc.StatusValid || p.Status == rundoc.StatusPredicted) && Measured(p.PromptTokS) {
			s.Prefill32KTokS = ptr(p.PromptTokS)
		}
	}
	if s.PeakTokS != nil && s.VRAMGB != nil && *s.VRAMGB > 0 {
		s.TokSPerGB = ptr(*s.PeakTokS / *s.VRAMGB)
	}
	return s
}

// decodeCI is a decode cell's total_tok_s interval when it has a finite one that holds
// its figure (a document is the submitter's: an interval beside its figure is not one).
func decodeCI(c rundoc.DecodeCell) *stats.Interval {
	if c.CellIntervals == nil || c.TotalTokSCI == nil {
		return nil
	}
	iv := *c.TotalTokSCI
	if !(iv.Low >= 0) || !Measured(iv.High) || iv.Low > c.TotalTokS || iv.High < c.TotalTokS {
		return nil
	}
	return &iv
}

// hasFigures says whether a decode cell carries figures to rank: a valid (or
// predicted) one with its figures; which of them it measured, Measured says.
func hasFigures(c rundoc.DecodeCell) bool {
	return c.DecodeFigures != nil && (c.Status == rundoc.StatusValid || c.Status == rundoc.StatusPredicted)
}

func ptr[T any](v T) *T { return &v }

// Profile is a named benchmark plan: runs of one profile compare like with like.
type Profile struct {
	Name            string
	Contexts        []int
	Concurrency     []int
	PrefillContexts []int
	DurationS       float64
	MaxOutputTokens int
}

// Profiles are the named plans. "speed-test" is the seed page's matrix.
var Profiles = []Profile{
	{
		Name:            "speed-test",
		Contexts:        []int{0, 16 * rundoc.K, 32 * rundoc.K, 56 * rundoc.K},
		Concurrency:     []int{1, 2, 4, 8, 16, 32, 64, 128},
		PrefillContexts: []int{8 * rundoc.K, 16 * rundoc.K, 32 * rundoc.K, 56 * rundoc.K},
		DurationS:       30,
		MaxOutputTokens: 8192,
	},
	{
		// Quick is "llmbench run --quick": a small matrix in about a minute. Its exact
		// plan belongs to the run command; a run marks itself quick in its config.
		Name: "quick",
	},
}

// ProfileCustom names a run whose plan matches no named profile.
const ProfileCustom = "custom"

// ProfileOf names the profile a run's config followed.
func ProfileOf(c rundoc.Config) string {
	if c.Quick {
		return "quick"
	}
	for _, p := range Profiles {
		if p.Contexts == nil {
			continue
		}
		if slices.Equal(sorted(c.Contexts), p.Contexts) && slices.Equal(sorted(c.Concurrency), p.Concurrency) &&
			slices.Equal(sorted(c.PrefillContexts), p.PrefillContexts) && c.DurationS == p.DurationS &&
			c.MaxOutputTokens == p.MaxOutputTokens {
			return p.Name
		}
	}
	return ProfileCustom
}

func sorted(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
