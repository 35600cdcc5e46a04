// Package golden keeps tests' expected output in files: whole golden files (File)
// and generated sections of documents between two markers (Section). Under
// go test -update it rewrites them from the current output instead of comparing;
// this package registers that one flag for every test binary that imports it.
package golden

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files and generated sections of documents from the current output")

// Updating says whether the test runs with -update: a test that records something
// other than a file's content (a live server's answers) rewrites it then.
func Updating() bool { return *update }

// File compares got with the file at path, or writes got there under -update.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// Section compares the text between the markers begin and end in the file at path
// with want, or puts want there under -update (the markers stay).
func Section(t testing.TB, path, begin, end, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	doc := string(b)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i+len(begin) {
		t.Fatalf("%s has no %q … %q section", path, begin, end)
	}
	have := doc[i+len(begin) : j]
	if have == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the section %s of %s is stale (-have +want; go test -update rewrites it):\n%s", begin, path, cmp.Diff(have, want))
}
