package main

import (
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/internal/session"
	"github.com/spf13/pflag"
)

// baseURLEnv names the server the way OpenAI's SDKs and most tools do.
const baseURLEnv = session.BaseURLEnv

// endpointAliases are other tools' names for --endpoint: vLLM's "vllm bench serve
// --base-url" and GuideLLM's "--target URL" (handled by targetValue, since --target
// is also the SLO share), and --output beside -o/--out as "llmbench report" spells it;
// and vLLM's names of the workload flags (--dataset-path, --prefix-repetition-*).
var endpointAliases = map[string]string{"base-url": "endpoint", "output": "out", "dataset-path": "dataset",
	"prefix-repetition-num-prefixes": "num-prefix-prompts", "prefix-repetition-prefix-len": "prefix-prompt-length"}

// aliasFlags makes the aliases the same flag as the names they stand for, so
// --base-url URL sets --endpoint and counts as it in Changed.
func aliasFlags(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := endpointAliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// targetValue is run's --target: GuideLLM's name for the server URL, and llmbench's
// share of requests that must meet --slo. A number in (0, 1] is the share; anything
// else is the server.
type targetValue struct {
	share *float64
	url   *string
}

func (t *targetValue) String() string {
	if t.share == nil {
		return ""
	}
	if t.url != nil && *t.url != "" {
		return *t.url
	}
	return strconv.FormatFloat(*t.share, 'g', -1, 64)
}

func (t *targetValue) Set(s string) error {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if !(v > 0 && v <= 1) {
			return fmt.Errorf("%v is neither a share of requests in (0, 1] (the SLO target) nor a server URL", v)
		}
		*t.share = v
		return nil
	}
	*t.url = s
	return nil
}

func (t *targetValue) Type() string { return "share|URL" }
