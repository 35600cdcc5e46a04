package session

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/llmbench/llmbench/internal/engine"
)

// BaseURLEnv names the server the way OpenAI's SDKs and most tools do.
const BaseURLEnv = "OPENAI_BASE_URL"

// EnvEndpoint is the endpoint a command uses when none was given: $OPENAI_BASE_URL,
// said on stderr so the user sees which server is measured. "" when it is unset.
func EnvEndpoint(stderr io.Writer) string {
	v := strings.TrimSpace(os.Getenv(BaseURLEnv))
	if v != "" {
		fmt.Fprintf(stderr, "Using $%s: %s (give --endpoint to measure another server; unset it for the built-in emulator)\n", BaseURLEnv, v)
	}
	return v
}

// ResolveEndpoint settles which server the run measures: Endpoint, else --target URL,
// else $OPENAI_BASE_URL for a new run (a resumed run keeps its own), else none: the
// built-in emulator.
func (c *Config) ResolveEndpoint(stderr io.Writer) error {
	if t := c.Rate.TargetURL; t != "" {
		if c.Endpoint != "" && c.Endpoint != t {
			return fmt.Errorf("--endpoint %s and --target %s name two servers: give one", c.Endpoint, t)
		}
		c.Endpoint = t
	}
	if c.Endpoint == "" && c.Resume == "" {
		c.Endpoint = EnvEndpoint(stderr)
	}
	return nil
}

// apiRoutes are request paths users paste by mistake in place of the server's base.
var apiRoutes = []string{"/chat/completions", "/completions", "/models", "/responses", "/embeddings"}

// ServerBase normalizes an endpoint to the server's root. A URL ending in an API
// route (http://host:8000/v1/chat/completions) is the common mistake of pasting the
// request URL: the route is dropped, and stderr says so.
func ServerBase(endpoint string, stderr io.Writer) (string, error) {
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

// ExplainServerError adds what to do to an error talking to the server at base: the
// wrong scheme, nothing listening, a refused key.
func ExplainServerError(err error, base string, keyGiven bool) error {
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
