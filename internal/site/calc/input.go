package calc

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
)

var launchUtil = regexp.MustCompile(`--gpu-memory-utilization[= ]+([0-9]*\.?[0-9]+)`)

// InputOf is the calculator input that describes a run's setup, from its document,
// and what had to be assumed.
func InputOf(run *rundoc.Run, rec store.RunRecord, lang string) (Input, []string) {
	in := Input{GPU: rec.GPU, GPUs: max(rec.GPUCount, 1), Model: rec.Model, Quant: run.Engine.Quantization,
		KVDtype: run.Engine.KVCacheDtype, Engine: run.Engine.Name,
		Contexts: run.Config.Contexts, Concurrency: run.Config.Concurrency, PrefillContexts: run.Config.PrefillContexts,
		MaxOutputTokens: run.Config.MaxOutputTokens, DurationS: run.Config.DurationS}
	var assumed []string
	if in.Quant == "" {
		in.Quant = "bf16"
		assumed = append(assumed, locale.T(lang, "assumed_quant"))
	}
	if in.KVDtype == "" || strings.EqualFold(in.KVDtype, "auto") {
		in.KVDtype = "fp16"
		assumed = append(assumed, locale.T(lang, "assumed_kv"))
	}
	if run.Engine.MaxModelLen != nil {
		in.MaxModelLen = *run.Engine.MaxModelLen
	}
	if run.Engine.MaxNumSeqs != nil && *run.Engine.MaxNumSeqs > 0 && *run.Engine.MaxNumSeqs <= rundoc.MaxConc {
		in.MaxNumSeqs = int(*run.Engine.MaxNumSeqs)
	}
	if run.Engine.PrefixCaching != nil && !*run.Engine.PrefixCaching {
		in.NoPrefixCaching = true
	}
	if m := launchUtil.FindStringSubmatch(run.LaunchCommand); m != nil {
		if u, err := strconv.ParseFloat(m[1], 64); err == nil && u > 0 && u <= 1 {
			in.MemoryUtilization = u
		}
	}
	if in.MemoryUtilization == 0 {
		assumed = append(assumed, locale.T(lang, "assumed_util"))
	}
	return in, assumed
}
