// Package calc is the site's decode calculator: what it is asked (Input, read from a
// query as "llmbench calc" takes its flags), the Calculator that answers (Perf, over
// internal/perf's catalog and model; the site asks it through Service's cache of
// answers), what would make an over-capacity cell fit (advice.go), and how many users
// a setup serves (users.go). It renders nothing: the calculator page and GET
// /api/v1/predict show what it answers.
package calc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
)

// Calculator predicts a run from specs: Perf, or a test's stand-in.
type Calculator interface {
	// GPUs and Models name what the catalog knows, for the form's choices; Choices the
	// weight formats, KV cache dtypes and engines it knows.
	GPUs() []string
	Models() []string
	Choices() Choices
	// Predict returns a run document with Status "predicted", and the memory split
	// behind its KV cache. An input it cannot use is a *Error.
	Predict(ctx context.Context, in Input) (*Prediction, error)
	// Capacity is the memory split alone (no matrix): cheap enough to try several
	// settings when looking for one that fits.
	Capacity(ctx context.Context, in Input) (Memory, error)
}

// Choices are the names the calculator offers besides GPUs and models.
type Choices struct {
	Quants, KVDtypes, Engines []string
}

// Input is what the calculator is asked: the knobs of "llmbench calc". Zero
// values take the calculator's defaults (one GPU, vLLM, bf16 weights, fp16 KV cache,
// 90% of memory, the model's context as max model length, vLLM's max_num_seqs, the
// seed's plan).
type Input struct {
	GPU, Model, Quant string
	KVDtype           string // fp16, fp8, …
	Engine            string
	GPUs              int
	MaxModelLen       int64
	MemoryUtilization float64
	MaxNumSeqs        int
	NoPrefixCaching   bool
	// The plan: empty takes the seed's (contexts 0–56K × 1–128, prefill 8K–56K,
	// 8,192 output tokens, 30 s).
	Contexts, Concurrency, PrefillContexts []int
	MaxOutputTokens                        int
	DurationS                              float64
}

// key identifies an input for the prediction cache.
func (in Input) key() string {
	b, _ := json.Marshal(in)
	return string(b)
}

// Prediction is a predicted run and what it stands on.
type Prediction struct {
	Run    *rundoc.Run
	Memory Memory
}

// Memory is the memory split of one GPU: what the engine may use (utilization ×
// what the GPU reports), less the weights and the runtime reserve, is the KV cache.
type Memory struct {
	GPUGiB      float64 // the memory the GPU reports
	Utilization float64
	BudgetGiB   float64
	WeightsGiB  float64
	ReserveGiB  float64
	KVGiB       float64
	KVTokens    int64
	MaxModelLen int64 // the max model length in force (the model's context when not set)
	MaxNumSeqs  int   // the engine's max_num_seqs, when it has one
	NoRoom      bool  // the weights and reserve leave nothing for a KV cache
}

// Error is an input the calculator cannot use: the field ("gpu", "model", "quant",
// "kv_dtype", "engine"; empty for the setup as a whole), the value, and for a name
// it does not know, the closest names it does.
type Error struct {
	Field, Value string
	Unknown      bool
	Closest      []string
	Reason       string // the calculator's own words (English), when not an unknown name
	NoRoom       bool   // the model does not fit the GPUs' memory at all
	Memory       Memory
}

func (e *Error) Error() string {
	if e.Unknown {
		msg := fmt.Sprintf("%s: unknown %q", e.Field, e.Value)
		if len(e.Closest) > 0 {
			msg += " (did you mean " + strings.Join(e.Closest, ", ") + "?)"
		}
		return msg
	}
	if e.Field != "" {
		return e.Field + ": " + e.Reason
	}
	return e.Reason
}

// Message is the error in the page's language.
func (e *Error) Message(lang string) string {
	switch {
	case e.Unknown && len(e.Closest) > 0:
		return locale.T(lang, "calc_err_unknown_closest", locale.T(lang, "calc_field_"+e.Field), e.Value, strings.Join(e.Closest, ", "))
	case e.Unknown:
		return locale.T(lang, "calc_err_unknown", locale.T(lang, "calc_field_"+e.Field), e.Value)
	case e.NoRoom:
		m := e.Memory
		return locale.T(lang, "calc_err_no_room", report.FormatNumber(lang, m.WeightsGiB, 1), report.FormatNumber(lang, m.ReserveGiB, 1), report.FormatNumber(lang, m.Utilization*100, 0), report.FormatNumber(lang, m.GPUGiB, 1), report.FormatNumber(lang, m.BudgetGiB, 1))
	case e.Field != "":
		return locale.T(lang, "calc_err_field", locale.T(lang, "calc_field_"+e.Field), e.Reason)
	}
	return locale.T(lang, "calc_err_other", e.Reason)
}

// FromQuery reads the calculator's knobs from a query (the page's form and GET
// /api/v1/predict take the same names as llmbench calc's flags, with underscores).
func FromQuery(v url.Values) (Input, *guard.FieldError) {
	in := Input{GPU: strings.TrimSpace(v.Get("gpu")), Model: strings.TrimSpace(v.Get("model")), Quant: strings.TrimSpace(v.Get("quant")),
		KVDtype: strings.TrimSpace(first(v, "kv_dtype", "kv")), Engine: strings.TrimSpace(v.Get("engine"))}
	var err *guard.FieldError
	intParam := func(name string, lo, hi int) int {
		s := strings.TrimSpace(v.Get(name))
		if s == "" || err != nil {
			return 0
		}
		n, e := strconv.Atoi(s)
		if e != nil || n < lo || n > hi {
			err = guard.Refuse(name, "calc_reason_int", lo, hi)
		}
		return n
	}
	tokenParam := func(name string) int {
		s := strings.TrimSpace(v.Get(name))
		if s == "" || err != nil {
			return 0
		}
		n, e := rundoc.ParseTokens(s)
		if e != nil || n < 1 || n > rundoc.MaxTokens {
			err = guard.Refuse(name, "calc_reason_tokens", rundoc.MaxTokens)
		}
		return n
	}
	in.GPUs = intParam("gpus", 1, 64)
	in.MaxNumSeqs = intParam("max_num_seqs", 1, rundoc.MaxConc)
	in.MaxModelLen = int64(tokenParam("max_model_len"))
	in.MaxOutputTokens = tokenParam("max_output")
	if s := strings.TrimSpace(first(v, "gpu_memory_utilization", "util")); s != "" && err == nil {
		u, e := strconv.ParseFloat(s, 64)
		if e != nil || !(u > 0 && u <= 1) {
			err = guard.Refuse("gpu_memory_utilization", "calc_reason_util")
		}
		in.MemoryUtilization = u
	}
	switch strings.ToLower(strings.TrimSpace(v.Get("prefix_caching"))) {
	case "", "on", "true", "1":
	case "off", "false", "0":
		in.NoPrefixCaching = true
	default:
		if err == nil {
			err = guard.Refuse("prefix_caching", "calc_reason_on_off")
		}
	}
	if err == nil && (in.GPU == "") != (in.Model == "") {
		field := "gpu"
		if in.Model == "" {
			field = "model"
		}
		err = guard.Refuse(field, "calc_reason_required")
	}
	return in, err
}

func first(v url.Values, names ...string) string {
	for _, n := range names {
		if s := v.Get(n); s != "" {
			return s
		}
	}
	return ""
}

// Query writes the input back as the calculator's URL parameters (zero values left out).
func (in Input) Query() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("gpu", in.GPU)
	set("model", in.Model)
	set("quant", in.Quant)
	set("kv_dtype", in.KVDtype)
	set("engine", in.Engine)
	if in.GPUs > 0 {
		v.Set("gpus", strconv.Itoa(in.GPUs))
	}
	if in.MaxModelLen > 0 {
		v.Set("max_model_len", strconv.FormatInt(in.MaxModelLen, 10))
	}
	if in.MemoryUtilization > 0 {
		v.Set("gpu_memory_utilization", strconv.FormatFloat(in.MemoryUtilization, 'f', -1, 64))
	}
	if in.MaxNumSeqs > 0 {
		v.Set("max_num_seqs", strconv.Itoa(in.MaxNumSeqs))
	}
	if in.MaxOutputTokens > 0 {
		v.Set("max_output", strconv.Itoa(in.MaxOutputTokens))
	}
	if in.NoPrefixCaching {
		v.Set("prefix_caching", "off")
	}
	return v
}

// AsError is err as a *Error (a plain error becomes one without a field).
func AsError(err error) *Error {
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	return &Error{Reason: err.Error()}
}
