package replay

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestShapesRender: every fixture renders a stream whose events are JSON (or [DONE]),
// in the order the fixture says, carrying the asked number of tokens.
func TestShapesRender(t *testing.T) {
	shapes, err := Shapes()
	if err != nil {
		t.Fatal(err)
	}
	if len(shapes) < 10 {
		t.Fatalf("%d shapes, want the ten engines' and more", len(shapes))
	}
	for name := range shapes {
		t.Run(name, func(t *testing.T) {
			s, err := Start(Config{Shape: name, Step: time.Millisecond, WarmTTFT: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			body := `{"model":"m","messages":[{"role":"user","content":"a b c"}],"max_tokens":7,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"timings_per_token":true}`
			resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			words, events, done := 0, 0, false
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				events++
				if data == "[DONE]" {
					done = true
					continue
				}
				var ch struct {
					Choices []struct {
						Delta struct {
							Content *string `json:"content"`
						} `json:"delta"`
					} `json:"choices"`
				}
				if err := json.Unmarshal([]byte(data), &ch); err != nil {
					t.Fatalf("event %d is not JSON: %v\n%s", events, err, data)
				}
				for _, c := range ch.Choices {
					if c.Delta.Content != nil {
						words += len(strings.Fields(*c.Delta.Content))
					}
				}
			}
			if !done || words != 7 {
				t.Errorf("%d words, done %v; want 7 tokens and [DONE]", words, done)
			}
			log := s.Log()
			if len(log) != 1 || len(log[0].Emits) == 0 {
				t.Fatalf("log %+v", log)
			}
			n := 0
			for _, e := range log[0].Emits {
				n += e.K
			}
			if n != 7 {
				t.Errorf("server logged %d tokens, want 7", n)
			}
		})
	}
}
