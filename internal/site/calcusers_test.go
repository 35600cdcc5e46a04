package site_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
)

// TestCalculatorAnswersHowManyUsers: "how many users can an RTX 3090 serve at 20 tok/s
// on this model at 16K?" is one request to the calculator page (speed=,
// users_context=), answered from the prediction at every number of requests up to the
// KV limit, in both languages; the predict API carries the same answer in "users".
// The seed's setup (vLLM's own KV cache, 99,669 tokens): at 16K, 3 users, the fourth's
// first token predicted at 1,037 ms (docs/capacity.md, the calculator's capacity).
func TestCalculatorAnswersHowManyUsers(t *testing.T) {
	hs := wiredSite(t)
	q := "gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4&quant=int4&kv_dtype=fp8&gpu_memory_utilization=0.94&max_model_len=64K"
	code, body := fetch(t, hs, "/api/v1/predict?"+q)
	var doc struct {
		Users *capacity.Summary `json:"users"`
	}
	if err := json.Unmarshal([]byte(body), &doc); code != http.StatusOK || err != nil || doc.Users == nil {
		t.Fatalf("GET /api/v1/predict: %d, no users block: %.300s", code, body)
	}
	row, ok := capacity.Answer{Rows: doc.Users.Rows}.Row(16 * 1024)
	if !ok || row.Users != 3 || row.Limit != capacity.LimitTTFT || row.Next != 4 {
		t.Errorf("the predicted capacity at 16K: %+v, want 3 users, the TTFT at 4", row)
	}
	want := "At 16K context: 3 users at ≥ 20 tok/s each, first token ≤ 1 s (limit: first token — at 4, 1,037 ms; 4.39 per $/h)."
	if !strings.Contains(strings.Join(doc.Users.Sentences, "\n"), want) {
		t.Errorf("the API's sentences %q lack %q", doc.Users.Sentences, want)
	}
	for _, lang := range []string{"en", "ja"} {
		code, body := fetch(t, hs, "/calculator?"+q+"&speed=20&users_context=16K&lang="+lang)
		if code != http.StatusOK {
			t.Fatalf("%s: the calculator: %d", lang, code)
		}
		answer := html.UnescapeString(section(t, body, `id="calc-users-answer"`, "</p>"))
		question := fmt.Sprintf(locale.T(lang, "calc_users_q"), "RTX 3090", "20", "RedHatAI/Qwen3.8-27B-INT4", "16K")
		if !strings.Contains(html.UnescapeString(body), question) {
			t.Errorf("%s: the page does not ask %q", lang, question)
		}
		if lang == "en" && !strings.Contains(answer, want) || lang == "ja" && !strings.Contains(answer, "16K コンテキスト：1 人あたり 20 tok/s 以上、最初のトークン 1 秒 以内 で 3 人") {
			t.Errorf("%s: the answer is %q", lang, answer)
		}
	}
	// A context the plan lacks is predicted too; a speed it cannot read is the form's error.
	_, body = fetch(t, hs, "/calculator?"+q+"&speed=10&users_context=24K")
	if answer := html.UnescapeString(section(t, body, `id="calc-users-answer"`, "</p>")); !strings.Contains(answer, "At 24K context:") || !strings.Contains(answer, "≥ 10 tok/s") {
		t.Errorf("at 24K, 10 tok/s: the answer is %q", answer)
	}
	code, body = fetch(t, hs, "/calculator?"+q+"&speed=fast")
	if code != http.StatusBadRequest || !strings.Contains(body, `id="calc-error"`) {
		t.Errorf("speed=fast: %d, want 400 with the form's error", code)
	}
}
