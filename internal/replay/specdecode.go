package replay

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// SpecPages are two /metrics pages of a speculative-decoding server, before and after
// a window of its drafting (internal/engine/testdata/specdecode, written from vLLM's
// source): the replay serves their draft counters advancing with its own generated
// tokens, by the pages' deltas per generated token, so that any window of a run sees
// the pages' acceptance rate and mean accepted length.
type SpecPages struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// specCounters are the pages' draft counter samples, by their line's name and labels.
type specCounters struct {
	help   []string           // the families' # HELP and # TYPE lines
	series []string           // name{labels}, in the after page's order
	before map[string]float64 // each series' value on the before page
	perGen map[string]float64 // each series' rise per generated token
}

// specFamily says a metric is a draft counter (vLLM's spec_decode family).
func specFamily(name string) bool { return strings.HasPrefix(name, "vllm:spec_decode") }

// loadSpecPages reads the two pages; the generation-token counter's rise between them
// is what the draft counters' rises are spread over.
func loadSpecPages(p *SpecPages) (*specCounters, error) {
	before, _, err := readSamples(p.Before)
	if err != nil {
		return nil, err
	}
	after, order, err := readSamples(p.After)
	if err != nil {
		return nil, err
	}
	gen := sumFamily(after, "vllm:generation_tokens_total") - sumFamily(before, "vllm:generation_tokens_total")
	if gen <= 0 {
		return nil, fmt.Errorf("%s and %s: the generation counter did not rise between them", p.Before, p.After)
	}
	sc := &specCounters{before: map[string]float64{}, perGen: map[string]float64{}}
	for _, key := range order {
		if !specFamily(metricName(key)) {
			continue
		}
		sc.series = append(sc.series, key)
		sc.before[key] = before[key]
		sc.perGen[key] = (after[key] - before[key]) / gen
	}
	b, err := os.ReadFile(p.After)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "#" && specFamily(f[2]) {
			sc.help = append(sc.help, line)
		}
	}
	return sc, nil
}

// page is the counters after gen generated tokens, as Prometheus text.
func (sc *specCounters) page(gen int64) string {
	var b strings.Builder
	for _, h := range sc.help {
		b.WriteString(h + "\n")
	}
	for _, key := range sc.series {
		fmt.Fprintf(&b, "%s %g\n", key, sc.before[key]+sc.perGen[key]*float64(gen))
	}
	return b.String()
}

// readSamples reads a Prometheus text page's samples by name{labels}, and their order.
func readSamples(path string) (map[string]float64, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]float64{}
	var order []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			return nil, nil, fmt.Errorf("%s: %q is not a sample", path, line)
		}
		out[line[:i]] = v
		order = append(order, line[:i])
	}
	return out, order, nil
}

func metricName(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		return key[:i]
	}
	return key
}

func sumFamily(samples map[string]float64, name string) float64 {
	sum := 0.0
	for key, v := range samples {
		if metricName(key) == name {
			sum += v
		}
	}
	return sum
}
