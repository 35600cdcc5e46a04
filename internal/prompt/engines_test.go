package prompt

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/openai"
)

// A llama-server stand-in: /apply-template wraps the message in a template, /tokenize
// counts words (+1 BOS when add_special), as llama.cpp's routes are shaped.
func fakeLlamaServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []openai.Message }
		json.NewDecoder(r.Body).Decode(&req)
		json.NewEncoder(w).Encode(map[string]string{"prompt": "<|user|> " + req.Messages[0].Content + " <|assistant|>"})
	})
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Content    string `json:"content"`
			AddSpecial bool   `json:"add_special"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		ids := []int{}
		if req.AddSpecial {
			ids = append(ids, 1)
		}
		for i := range strings.Fields(req.Content) {
			ids = append(ids, 100+i%50)
		}
		json.NewEncoder(w).Encode(map[string][]int{"tokens": ids})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestLlamaCppCounting(t *testing.T) {
	srv := fakeLlamaServer(t)
	client := openai.NewClient(srv.URL+"/v1", "", 2)
	route := Route{Style: "llamacpp", URL: srv.URL + "/tokenize", TokenIDPrompts: true}

	chat := NewCounting(client, "m", Chat, route)
	if !chat.Exact || chat.Tokenizer != nil {
		t.Fatalf("chat on llama.cpp: exact %v, token ids %v; want exact text prompts", chat.Exact, chat.Tokenizer != nil)
	}
	n, err := chat.Counter.Count(context.Background(), Payload{Messages: []openai.Message{{Role: "user", Content: "a b c"}}})
	if err != nil || n != 1+5 { // BOS + "<|user|> a b c <|assistant|>"
		t.Errorf("chat count = %d, %v; want 6 (template applied, BOS added)", n, err)
	}
	b := &Builder{API: Chat, Counter: chat.Counter}
	ctx, err := b.Build(context.Background(), 2000, "[n]")
	if err != nil || ctx.Actual != 2000 {
		t.Errorf("built %v tokens, %v; want exactly 2000", ctx.Actual, err)
	}

	comp := NewCounting(client, "m", Completions, route)
	if comp.Tokenizer == nil {
		t.Fatal("completions on llama.cpp should use token-id prompts")
	}
	b = &Builder{API: Completions, Counter: comp.Counter, Tokenizer: comp.Tokenizer}
	ctx, err = b.Build(context.Background(), 1000, "[n]")
	if err != nil {
		t.Fatal(err)
	}
	p0, p1 := ctx.Payload(0), ctx.Payload(1)
	if len(p0.IDs) != 1000 || len(p1.IDs) != 1000 {
		t.Errorf("token-id prompts of %d and %d ids, want 1000", len(p0.IDs), len(p1.IDs))
	}
	if equalInts(p0.IDs, p1.IDs) {
		t.Error("two requests got the same token ids")
	}
}

func TestCountingFallbacks(t *testing.T) {
	client := openai.NewClient("http://127.0.0.1:1/v1", "", 1)
	for _, tc := range []struct {
		route Route
		api   API
		exact bool
		ids   bool
	}{
		{Route{}, Chat, false, false},                          // no route: usage
		{Route{Style: "sglang", URL: "x"}, Chat, false, false}, // no messages form
		{Route{Style: "sglang", URL: "x", TokenIDPrompts: true}, Completions, true, true},
		{Route{Style: "tgi", URL: "x"}, Chat, false, false},
		{Route{Style: "tgi", URL: "x"}, Completions, true, false},
		{Route{Style: "vllm", URL: "x", TokenIDPrompts: true}, Chat, true, false},
	} {
		c := NewCounting(client, "m", tc.api, tc.route)
		if c.Exact != tc.exact || (c.Tokenizer != nil) != tc.ids {
			t.Errorf("%+v %s: exact %v ids %v, want %v %v", tc.route, tc.api, c.Exact, c.Tokenizer != nil, tc.exact, tc.ids)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
