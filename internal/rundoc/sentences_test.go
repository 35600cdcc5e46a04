package rundoc

import (
	"slices"
	"strings"
	"testing"
)

// TestSentencesReadBack: every sentence, written with parts, reads back as itself with
// those parts — the SLO sentences before the one that wraps another (SLOValue), whose
// pattern would take them too — and a text in no sentence's form is not read.
func TestSentencesReadBack(t *testing.T) {
	for _, s := range Sentences() {
		n := strings.Count(s.English, "%s")
		var parts []string
		for i := range n {
			parts = append(parts, []string{`"ttft=soon"`, "4242", "0.34", "200ms", "pid 7 python3 on GPU 1 (2048 MiB)"}[i%5])
		}
		got, back, ok := ReadSentence(s.Write(parts...))
		if !ok || got != s || !slices.Equal(back, parts) {
			t.Errorf("%s written with %q reads back as %v %q", s.Key, parts, got, back)
		}
	}
	for _, other := range []string{"", "the server said no", "too few samples"} {
		if _, _, ok := ReadSentence(other); ok {
			t.Errorf("%q read as a sentence", other)
		}
	}
}

// TestSLOErrorsAreSentences: why ParseSLO and ParseMillis refuse a target is one of
// the sentences (so a page can say it in its language), with the item quoted as before.
func TestSLOErrorsAreSentences(t *testing.T) {
	for _, c := range []struct {
		slo  string
		want *Sentence
		text string
	}{
		{"ttft=soon", SLOValue, `SLO "ttft=soon": "soon" is not a duration (500ms, 2s)`},
		{"ttft=-1ms", SLOValue, `SLO "ttft=-1ms": the target must be positive`},
		{"ttft", SLONotKeyValue, `SLO "ttft": write name=duration, e.g. ttft=500ms`},
		{"speed=1s", SLOUnknown, `SLO "speed=1s": the targets are ttft, tpot and e2e`},
		{",", SLONone, `SLO "," names no target (ttft, tpot, e2e)`},
	} {
		_, err := ParseSLO(c.slo, 0.9)
		if err == nil || err.Error() != c.text {
			t.Errorf("ParseSLO(%q): %v, want %q", c.slo, err, c.text)
			continue
		}
		if s, _, ok := ReadSentence(err.Error()); !ok || s != c.want {
			t.Errorf("ParseSLO(%q)'s error reads as %v, want %s", c.slo, s, c.want.Key)
		}
	}
	if _, err := ParseSLO("ttft=1s", 2); err == nil || err.Error() != "SLO target 2: give a share of requests in (0, 1], e.g. 0.95" {
		t.Errorf("target 2: %v", err)
	}
}
