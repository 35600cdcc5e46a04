// Package storetest opens fresh site stores for tests: a SQLite file in a temporary
// directory, and a PostgreSQL schema of its own on the server named by
// LLMBENCH_TEST_POSTGRES_URL, so that every store test runs against both databases.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/site/store"
)

// PostgresEnv names the environment variable holding the test server's URL.
const PostgresEnv = "LLMBENCH_TEST_POSTGRES_URL"

// Each runs f once per database as a subtest named "sqlite" or "postgres", each with a
// fresh, empty store. Without LLMBENCH_TEST_POSTGRES_URL the postgres subtest is skipped,
// except under CI (CI=true), where that is a failure.
func Each(t *testing.T, f func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, Postgres(t)) })
}

// SQLite opens a fresh SQLite store in t.TempDir().
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "site.db"))
}

// Postgres opens a fresh store in a new schema on the test PostgreSQL server, dropped
// when the test ends.
func Postgres(t testing.TB) *store.Store {
	t.Helper()
	return open(t, PostgresURL(t))
}

// Pair runs f once per database with two stores open on one fresh database, as two
// site instances would be: writes through either are seen by both.
func Pair(t *testing.T, f func(t *testing.T, a, b *store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "site.db")
		f(t, open(t, path), open(t, path))
	})
	t.Run("postgres", func(t *testing.T) {
		u := PostgresURL(t)
		f(t, open(t, u), open(t, u))
	})
}

// EachDSN runs f once per database as a subtest named "sqlite" or "postgres", with the
// name of a fresh, empty database that no store has opened yet (a test that closes
// and opens the store again, or opens it at an older schema).
func EachDSN(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "site.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, PostgresURL(t)) })
}

func open(t testing.TB, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// PostgresURL creates a new schema on the test PostgreSQL server, dropped when the
// test ends, and returns the URL of a connection that uses it. Without
// LLMBENCH_TEST_POSTGRES_URL the test is skipped, except under CI (CI=true).
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set under CI: .ci/setup-30-postgres.sh should have started PostgreSQL", PostgresEnv)
		}
		t.Skipf("PostgreSQL store test skipped: set %s (see .ci/setup-30-postgres.sh)", PostgresEnv)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("opening %s: %v", PostgresEnv, err)
	}
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		t.Fatalf("creating test schema: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parsing %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
