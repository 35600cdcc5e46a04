package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// requestTimeout bounds each discovery request: a server that takes longer to say
// what it is is treated as not having that endpoint, so probe never hangs.
const requestTimeout = 10 * time.Second

// maxBody caps what discovery reads from one answer (a vLLM /metrics page is ~100 KB).
const maxBody = 8 << 20

// NormalizeBase accepts a server's root URL or its OpenAI base (".../v1", with or
// without a trailing slash) and returns the root without a trailing slash.
func NormalizeBase(endpoint string) (string, error) {
	s := strings.TrimSpace(endpoint)
	if s == "" {
		return "", errors.New("empty endpoint: give the server's URL, e.g. http://127.0.0.1:8000")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("endpoint %q is not a URL: %w", endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("endpoint %q: scheme must be http or https", endpoint)
	}
	if u.Host == "" {
		return "", fmt.Errorf("endpoint %q has no host", endpoint)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path = strings.TrimRight(p, "/")
	u.RawPath = ""
	u.RawQuery = ""
	u.Fragment = ""
	return u.String(), nil
}

// ErrUnauthorized is a server refusing the request's credentials (HTTP 401 or 403):
// no API key where it wants one, or a key it does not take. The caller knows which.
var ErrUnauthorized = errors.New("the server refused the request's credentials (no API key, or one it does not take)")

// Probe learns what the server at base (its root, without /v1) is. It lists the
// served models, identifies the engine from its own endpoints, and fills what that
// engine exposes. An unreachable server or one that does not speak the OpenAI API
// is an error; a fact the server does not expose stays nil.
func Probe(ctx context.Context, c Doer, base string) (*Info, error) {
	root, err := NormalizeBase(base)
	if err != nil {
		return nil, err
	}
	p := &prober{c: c, base: root}
	info := &Info{Engine: OpenAICompatible}

	models, status, err := p.models(ctx)
	if err != nil {
		return nil, err
	}
	if models != nil {
		for _, m := range models.Data {
			info.Models = append(info.Models, m.ID)
		}
		if len(models.Data) > 0 {
			info.ServedModel = ptr(models.Data[0].ID)
		}
	}

	kind := p.identify(ctx, models)
	if kind == "" && models == nil {
		return nil, fmt.Errorf("%s does not look like an OpenAI-compatible server: GET /v1/models answered HTTP %d and no known engine endpoint answered", root, status)
	}
	if kind == "" {
		kind = OpenAICompatible
	}
	info.Engine = kind
	var first *openai.ModelCard
	if models != nil && len(models.Data) > 0 {
		first = &models.Data[0]
	}
	switch kind {
	case VLLM, Sim:
		p.fillVLLM(ctx, info, first)
	case SGLang:
		p.fillSGLang(ctx, info, first)
	case LlamaCpp:
		p.fillLlamaCpp(ctx, info, first)
	case Ollama:
		p.fillOllama(ctx, info)
	case TGI:
		p.fillTGI(ctx, info)
	case TRTLLM:
		p.fillTRTLLM(ctx, info, first)
	case LMStudio:
		p.fillLMStudio(ctx, info)
	default:
		p.fillGeneric(ctx, info, first)
	}
	if info.ServedModel == nil {
		info.Notes = append(info.Notes, "the server lists no model on /v1/models")
	}
	return info, nil
}

// prober holds what one Probe call shares between its requests.
type prober struct {
	c    Doer
	base string
	// simVersion is the emulator's /version answer, kept from identification.
	simVersion *simVersion
}

// reachError turns a transport error into the sentence a user needs.
func reachError(u string, err error) error {
	var reason string
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused — is the server running?"
	case errors.Is(err, context.DeadlineExceeded):
		reason = "timed out — is the server running?"
	case errors.As(err, &dnsErr):
		reason = "unknown host " + dnsErr.Name
	default:
		// A TLS or protocol mismatch: the server is there, so asking whether it runs
		// would point the wrong way; the caller adds the hint.
		reason = err.Error()
	}
	return &reachErr{msg: fmt.Sprintf("cannot reach %s: %s", u, reason), err: err}
}

// reachErr keeps the transport error for errors.Is while saying it in a sentence.
type reachErr struct {
	msg string
	err error
}

func (e *reachErr) Error() string { return e.msg }
func (e *reachErr) Unwrap() error { return e.err }

// do sends one request and reads a bounded body. A transport failure is returned as
// an error; any HTTP status is returned with the body.
func (p *prober) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("encoding %s body: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("building %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.1")
	resp, err := p.c.Do(req)
	if err != nil {
		return 0, nil, reachError(p.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return resp.StatusCode, b, nil
}

// getJSON fetches path and decodes a 200 JSON answer into v. It reports whether it
// did; any failure means "this server does not expose that", never an error.
func (p *prober) getJSON(ctx context.Context, path string, v any) bool {
	status, b, err := p.do(ctx, http.MethodGet, path, nil)
	if err != nil || status != http.StatusOK {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// postJSON posts body to path and decodes a 200 JSON answer into v.
func (p *prober) postJSON(ctx context.Context, path string, body, v any) bool {
	status, b, err := p.do(ctx, http.MethodPost, path, body)
	if err != nil || status != http.StatusOK {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// getText fetches path and returns a 200 answer's body.
func (p *prober) getText(ctx context.Context, path string) ([]byte, bool) {
	status, b, err := p.do(ctx, http.MethodGet, path, nil)
	if err != nil || status != http.StatusOK {
		return nil, false
	}
	return b, true
}

// models fetches /v1/models. A transport failure is fatal (the server is not there);
// a non-200 or non-OpenAI answer returns nil models and the status.
func (p *prober) models(ctx context.Context) (*openai.ModelList, int, error) {
	status, b, err := p.do(ctx, http.MethodGet, "/v1/models", nil)
	if err != nil {
		return nil, 0, err
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return nil, status, fmt.Errorf("%s/v1/models answered HTTP %d: %w", p.base, status, ErrUnauthorized)
	}
	if status != http.StatusOK {
		return nil, status, nil
	}
	var ml openai.ModelList
	if err := json.Unmarshal(b, &ml); err != nil || (ml.Data == nil && ml.Object != "list") {
		return nil, status, fmt.Errorf("%s/v1/models did not answer an OpenAI model list (%s) — is this an OpenAI-compatible server?", p.base, snippet(b))
	}
	return &ml, status, nil
}

// snippet shows the start of an unexpected answer in an error message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	if s == "" {
		return "empty body"
	}
	return fmt.Sprintf("%q", s)
}

// identify names the engine. The model list's owned_by is each engine's own mark and
// is trusted first; otherwise each engine's distinctive endpoint is tried in an order
// where an earlier check cannot be satisfied by a later engine.
func (p *prober) identify(ctx context.Context, models *openai.ModelList) string {
	owned := ""
	if models != nil && len(models.Data) > 0 {
		owned = models.Data[0].OwnedBy
	}
	// The emulator answers vLLM's routes too, so it is asked before vLLM.
	var sv simVersion
	if p.getJSON(ctx, "/version", &sv) && sv.Engine == Sim {
		p.simVersion = &sv
		return Sim
	}
	switch owned {
	case Sim:
		return Sim
	case "vllm":
		return VLLM
	case "sglang":
		return SGLang
	case "llamacpp":
		return LlamaCpp
	case "tensorrt_llm":
		return TRTLLM
	}
	var ov struct {
		Version *string `json:"version"`
	}
	if p.getJSON(ctx, "/api/version", &ov) && ov.Version != nil {
		return Ollama
	}
	var props map[string]json.RawMessage
	if p.getJSON(ctx, "/props", &props) {
		if _, ok := props["default_generation_settings"]; ok {
			return LlamaCpp
		}
	}
	var ti map[string]json.RawMessage
	if p.getJSON(ctx, "/info", &ti) {
		_, hasModel := ti["model_id"]
		_, hasRouter := ti["router"]
		if hasModel && hasRouter {
			return TGI
		}
	}
	for _, path := range []string{"/server_info", "/get_server_info"} {
		var si map[string]json.RawMessage
		if p.getJSON(ctx, path, &si) {
			if _, ok := si["model_path"]; ok {
				return SGLang
			}
		}
	}
	var lm struct {
		Data []json.RawMessage `json:"data"`
	}
	if p.getJSON(ctx, "/api/v0/models", &lm) && lm.Data != nil {
		return LMStudio
	}
	if b, ok := p.getText(ctx, "/metrics"); ok && bytes.Contains(b, []byte("vllm:")) {
		return VLLM
	}
	return ""
}

// fillGeneric records what any OpenAI-compatible server tells: the model list.
func (p *prober) fillGeneric(ctx context.Context, info *Info, m *openai.ModelCard) {
	fillFromCard(info, m)
	info.Notes = append(info.Notes, "engine not recognised: only /v1/models was read")
}

// fillFromCard copies what a /v1/models entry says (vLLM/SGLang extensions included).
func fillFromCard(info *Info, m *openai.ModelCard) {
	if m == nil {
		return
	}
	if m.Root != "" {
		info.ModelID = ptr(m.Root)
	}
	if m.MaxModelLen != nil && *m.MaxModelLen > 0 {
		info.MaxModelLen = ptr(*m.MaxModelLen)
	}
}

// checkTokenize asks route to count a short prompt and reports whether it answered
// with tokens, so that Info.Tokenize names a route that was seen to work.
func (p *prober) checkTokenize(ctx context.Context, route string, body any) bool {
	status, b, err := p.do(ctx, http.MethodPost, route, body)
	if err != nil || status != http.StatusOK {
		return false
	}
	var out struct {
		Tokens json.RawMessage `json:"tokens"`
		Count  *int            `json:"count"`
	}
	if json.Unmarshal(b, &out) == nil {
		return len(out.Tokens) > 0 || out.Count != nil
	}
	// TGI answers a bare array of {id,text,start,stop}.
	var arr []map[string]any
	return json.Unmarshal(b, &arr) == nil && len(arr) > 0
}

func ptr[T any](v T) *T { return &v }

// WithAPIKey returns a Doer that sends key as a bearer token on every request
// (discovery and metrics routes sit behind the same key as /v1 on most servers).
// An empty key returns c unchanged.
func WithAPIKey(c Doer, key string) Doer {
	if key == "" {
		return c
	}
	return bearer{c: c, key: key}
}

type bearer struct {
	c   Doer
	key string
}

func (b bearer) Do(r *http.Request) (*http.Response, error) {
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.c.Do(r)
}
