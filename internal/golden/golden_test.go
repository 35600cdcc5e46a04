package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a check reported instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// check runs f against a recorder in its own goroutine (Fatalf ends it) and returns
// what it reported.
func check(t *testing.T, f func(tb testing.TB)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failed
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "want.txt")
	write(t, path, "same\n")
	if got := check(t, func(tb testing.TB) { File(tb, path, []byte("same\n")) }); len(got) != 0 {
		t.Errorf("equal content reported %q", got)
	}
	got := check(t, func(tb testing.TB) { File(tb, path, []byte("other\n")) })
	if len(got) != 1 || !strings.Contains(got[0], "differs") {
		t.Errorf("different content reported %q, want one difference", got)
	}
	if got := check(t, func(tb testing.TB) { File(tb, path+".missing", nil) }); len(got) != 1 {
		t.Errorf("a missing golden file reported %q, want one failure", got)
	}
	*update = true
	defer func() { *update = false }()
	check(t, func(tb testing.TB) { File(tb, path, []byte("other\n")) })
	if b, _ := os.ReadFile(path); string(b) != "other\n" {
		t.Errorf("-update left %q, want the new content", b)
	}
}

func TestSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	const doc = "intro\n<!-- x:begin -->\nold table\n<!-- x:end -->\noutro\n"
	write(t, path, doc)
	section := func(want string) []string {
		return check(t, func(tb testing.TB) { Section(tb, path, "<!-- x:begin -->", "<!-- x:end -->", want) })
	}
	if got := section("\nold table\n"); len(got) != 0 {
		t.Errorf("a current section reported %q", got)
	}
	if got := section("\nnew table\n"); len(got) != 1 || !strings.Contains(got[0], "stale") {
		t.Errorf("a stale section reported %q, want it called stale", got)
	}
	if got := check(t, func(tb testing.TB) { Section(tb, path, "<!-- y:begin -->", "<!-- y:end -->", "") }); len(got) != 1 {
		t.Errorf("missing markers reported %q, want one failure", got)
	}
	*update = true
	defer func() { *update = false }()
	section("\nnew table\n")
	if b, _ := os.ReadFile(path); string(b) != "intro\n<!-- x:begin -->\nnew table\n<!-- x:end -->\noutro\n" {
		t.Errorf("-update wrote %q, want only the section replaced", b)
	}
}
