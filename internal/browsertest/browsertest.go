// Package browsertest starts headless Chromium for tests that look at a rendered page:
// it finds the browser, launches it with flags that keep it quiet and offline (no
// first-run, no background networking, no component updates, no QUIC, a fresh profile),
// records every network request the page makes, and saves screenshots as test artifacts.
//
// A test calls Start and gets a chromedp context bound to one tab; the browser is shut
// down by t.Cleanup. When no Chromium is installed the test is skipped with a message
// saying how to get one — except under CI (CI=true), where a missing browser fails the
// test, because CI is where these tests must run.
//
// Where the browser is: $LLMBENCH_CHROMIUM if set, else the first of chromium,
// chromium-browser, google-chrome, google-chrome-stable on $PATH, else /usr/bin/chromium.
// Where screenshots go: $LLMBENCH_ARTIFACTS if set, else the test's t.TempDir().
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// EnvChromium names the environment variable that points at the Chromium binary.
const EnvChromium = "LLMBENCH_CHROMIUM"

// EnvArtifacts names the environment variable of the folder screenshots are saved to.
const EnvArtifacts = "LLMBENCH_ARTIFACTS"

// DefaultTimeout bounds everything a test does in one browser, so that a hung page
// fails the test instead of hanging the test binary.
const DefaultTimeout = 90 * time.Second

// ChromiumPath returns the Chromium binary to use, or an error saying how to get one.
func ChromiumPath() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvChromium, p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	return "", errors.New("no Chromium found: install it (Debian: apt-get install chromium) or set " + EnvChromium)
}

// AllocatorOptions are the flags the browser is started with: headless, no sandbox
// (tests often run as root in containers), no GPU, and nothing that talks to the
// network on its own, so that any request a test sees came from the page.
func AllocatorOptions(execPath, userDataDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(execPath),
		chromedp.UserDataDir(userDataDir),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,AutofillServerCommunication"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.WindowSize(1280, 900),
	}
}

// Start launches a headless Chromium with a fresh profile and returns a context bound
// to one of its tabs, for chromedp.Do and chromedp.Run. The browser stops when the test ends, and every
// action must finish within DefaultTimeout. Start skips the test when Chromium is
// missing (fails it under CI=true).
func Start(t testing.TB) context.Context {
	t.Helper()
	return StartFor(t, DefaultTimeout)
}

// StartFor is Start for a test that does more in one browser than DefaultTimeout
// allows (a walk through every page): everything it does must finish within timeout.
func StartFor(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	path, err := ChromiumPath()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("browser test needs Chromium under CI: %v", err)
		}
		t.Skipf("skipping browser test: %v", err)
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, AllocatorOptions(path, t.TempDir())...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	// Start the browser now, so that a browser that cannot start is reported here and
	// not as a failure of the test's first action.
	if err := chromedp.Do(tabCtx); err != nil {
		t.Fatalf("starting Chromium %s: %v", path, err)
	}
	return tabCtx
}

// Requests records the URL of every request the tab sends, from the browser's own
// network events (so it sees requests that never reach a server: other hosts,
// blocked fetches, fonts, favicons).
type Requests struct {
	mu   sync.Mutex
	urls []string
}

// RecordRequests starts recording the tab's requests. Call it before navigating.
func RecordRequests(t testing.TB, ctx context.Context) *Requests {
	t.Helper()
	r := &Requests{}
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			r.mu.Lock()
			r.urls = append(r.urls, e.Request.URL)
			r.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("listening to the tab's network events: %v", err)
	}
	return r
}

// URLs returns the URLs requested so far, in order.
func (r *Requests) URLs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

// Except returns the requested URLs that are not in allowed and are not data: URLs
// (which carry their content inline and never touch the network).
func (r *Requests) Except(allowed ...string) []string {
	ok := make(map[string]bool, len(allowed))
	for _, a := range allowed {
		ok[a] = true
	}
	var out []string
	for _, u := range r.URLs() {
		if ok[u] || len(u) >= 5 && u[:5] == "data:" {
			continue
		}
		out = append(out, u)
	}
	return out
}

// ArtifactDir returns the folder test artifacts go to: $LLMBENCH_ARTIFACTS (created if
// needed) or the test's temporary folder.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(EnvArtifacts); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("creating artifact folder: %v", err)
		}
		return d
	}
	return t.TempDir()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot saves a full-page PNG of the tab as name (made file-safe, ".png" added)
// in ArtifactDir, logs its path and returns it.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 = PNG
	if err != nil {
		t.Fatalf("taking screenshot %s: %v", name, err)
	}
	path := filepath.Join(ArtifactDir(t), unsafeName.ReplaceAllString(name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("saving screenshot: %v", err)
	}
	t.Logf("screenshot: %s", path)
	return path
}
