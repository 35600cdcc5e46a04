package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/engine"
)

// baseURLEnv names the server the way OpenAI's SDKs and most tools do.
const baseURLEnv = "OPENAI_BASE_URL"

// endpointAliases are other tools' names for --endpoint: vLLM's "vllm bench serve
// --base-url" and GuideLLM's "--target URL" (handled by targetValue, since --target
// is also the SLO share), and --output beside -o/--out as "llmbench report" spells it.
var endpointAliases = map[string]string{"base-url": "endpoint", "output": "out"}

// aliasFlags makes the aliases the same flag as the names they stand for, so
// --base-url URL sets --endpoint and counts as it in Changed.
func aliasFlags(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := endpointAliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// envEndpoint is the endpoint a command uses when none was given: $OPENAI_BASE_URL,
// said on stderr so the user sees which server is measured. "" when it is unset.
func envEndpoint(stderr io.Writer) string {
	v := strings.TrimSpace(os.Getenv(baseURLEnv))
	if v != "" {
		fmt.Fprintf(stderr, "Using $%s: %s (give --endpoint to measure another server; unset it for the built-in emulator)\n", baseURLEnv, v)
	}
	return v
}

// apiRoutes are request paths users paste by mistake in place of the server's base.
var apiRoutes = []string{"/chat/completions", "/completions", "/models", "/responses", "/embeddings"}

// serverBase normalizes an endpoint to the server's root. A URL ending in an API
// route (http://host:8000/v1/chat/completions) is the common mistake of pasting the
// request URL: the route is dropped, and stderr says so.
func serverBase(endpoint string, stderr io.Writer) (string, error) {
	s := strings.TrimRight(strings.TrimSpace(endpoint), "/")
	for _, r := range apiRoutes {
		if strings.HasSuffix(s, r) {
			fmt.Fprintf(stderr, "note: %s is a request route, not the server's base URL: using %s (llmbench picks the routes itself; --api chooses chat or completions)\n",
				endpoint, strings.TrimSuffix(s, r))
			s = strings.TrimSuffix(s, r)
			break
		}
	}
	return engine.NormalizeBase(s)
}

// explainServerError adds what to do to an error talking to the server at base: the
// wrong scheme, nothing listening, a refused key.
func explainServerError(err error, base string, keyGiven bool) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	u, _ := url.Parse(base)
	switch {
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"),
		strings.Contains(msg, "first record does not look like a TLS handshake"):
		return fmt.Errorf("%w\nhint: the server speaks plain HTTP: use %s", err, withScheme(u, "http"))
	case strings.Contains(msg, "HTTP request to an HTTPS server"):
		return fmt.Errorf("%w\nhint: the server speaks HTTPS: use %s", err, withScheme(u, "https"))
	case errors.Is(err, engine.ErrUnauthorized) && keyGiven:
		return fmt.Errorf("%w\nhint: the API key given (--api-key or $OPENAI_API_KEY) was refused: check that it is the key this server was started with", err)
	case errors.Is(err, engine.ErrUnauthorized):
		return fmt.Errorf("%w\nhint: the server wants an API key: give --api-key KEY or set OPENAI_API_KEY", err)
	}
	return err
}

func withScheme(u *url.URL, scheme string) string {
	if u == nil {
		return scheme + "://…"
	}
	c := *u
	c.Scheme = scheme
	return c.String()
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

// resolveEndpoint settles which server run measures: --endpoint (or an alias), else
// --target URL, else $OPENAI_BASE_URL for a new run (a resumed run keeps its own),
// else none: the built-in emulator.
func (f *runFlags) resolveEndpoint(stderr io.Writer) error {
	if t := f.rate.targetURL; t != "" {
		if f.endpoint != "" && f.endpoint != t {
			return fmt.Errorf("--endpoint %s and --target %s name two servers: give one", f.endpoint, t)
		}
		f.endpoint = t
	}
	if f.endpoint == "" && f.resume == "" {
		f.endpoint = envEndpoint(stderr)
	}
	return nil
}
