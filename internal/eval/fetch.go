package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Source is one pinned data file: where it lives upstream (a URL naming the pinned
// revision), its size and SHA-256.
type Source struct {
	URL    string
	SHA256 string
	Size   int64
}

// MirrorEnv names a mirror of the data hosts: its scheme and host replace the
// upstream's, the path stays (the mirror is laid out as the real hosts are). For a
// mirror behind a firewall, and for tests.
const MirrorEnv = "LLMBENCH_EVAL_MIRROR"

// Cache is where downloaded sets are kept, and how they are downloaded.
type Cache struct {
	// Dir holds the files, one folder per host path: os.UserCacheDir()/llmbench/eval.
	Dir string
	// Mirror, when set, replaces the scheme and host of every source URL.
	Mirror string
	HTTP   *http.Client
}

// DefaultCache is the user's cache, with the mirror $LLMBENCH_EVAL_MIRROR names.
func DefaultCache() (Cache, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return Cache{}, fmt.Errorf("finding the cache directory for evaluation sets: %w", err)
	}
	return Cache{Dir: filepath.Join(dir, "llmbench", "eval"), Mirror: os.Getenv(MirrorEnv), HTTP: http.DefaultClient}, nil
}

// ErrChanged marks a file whose checksum is not the pinned one: an upstream file
// changed (or a cached one was altered). It is never used.
var ErrChanged = errors.New("the file is not the pinned one")

// Path is where the cache keeps src: its URL's host and path under Dir.
func (c Cache) Path(src Source) string {
	u, err := url.Parse(src.URL)
	if err != nil {
		return filepath.Join(c.Dir, "bad-url")
	}
	return filepath.Join(c.Dir, u.Host, filepath.FromSlash(strings.TrimPrefix(u.Path, "/")))
}

// Fetch returns the cached copy of src, downloading it first if need be. A copy or a
// download whose size or SHA-256 is not the pinned one is refused (ErrChanged); a
// download that fails says where to put the file by hand.
func (c Cache) Fetch(ctx context.Context, src Source) (string, error) {
	path := c.Path(src)
	if _, err := os.Stat(path); err == nil {
		if err := check(path, src); err != nil {
			return "", fmt.Errorf("cached %s: %w (delete it and run again to download it anew)", path, err)
		}
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("creating the evaluation cache: %w", err)
	}
	tmp, err := c.download(ctx, src, path)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	if err := check(tmp, src); err != nil {
		return "", fmt.Errorf("refusing %s: %w", c.url(src), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("caching %s: %w", path, err)
	}
	return path, nil
}

// url is src's URL, on the mirror when one is set.
func (c Cache) url(src Source) string {
	if c.Mirror == "" {
		return src.URL
	}
	u, err := url.Parse(src.URL)
	if err != nil {
		return src.URL
	}
	return strings.TrimRight(c.Mirror, "/") + u.Path
}

// download writes src to a temporary file beside path and returns its name.
func (c Cache) download(ctx context.Context, src Source, path string) (string, error) {
	offline := func(err error) error {
		return fmt.Errorf("downloading %s: %w\nOffline? Fetch that file elsewhere and put it at\n  %s\n(%d bytes, SHA-256 %s)", c.url(src), err, path, src.Size, src.SHA256)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url(src), nil)
	if err != nil {
		return "", offline(err)
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", offline(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", offline(fmt.Errorf("HTTP %d", resp.StatusCode))
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("caching %s: %w", path, err)
	}
	// One byte more than the pinned size is enough to tell a changed file.
	_, err = io.Copy(f, io.LimitReader(resp.Body, src.Size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", offline(err)
	}
	return f.Name(), nil
}

// check compares a file with the pin.
func check(path string, src Source) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if n != src.Size || sum != src.SHA256 {
		return fmt.Errorf("%w: it has %d bytes and SHA-256 %s, the pinned revision's file %d bytes and %s", ErrChanged, n, sum, src.Size, src.SHA256)
	}
	return nil
}
