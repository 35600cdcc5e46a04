// Package store owns the site's data: runs (each run document stored verbatim, with
// its summary columns to filter by and every value of every registered metric to rank
// by, as internal/site/metric reads them), the counts that plan its queries, users and
// their hashed API tokens, organisations, written reports, and the rate limits' buckets
// that instances share. It is the only place with SQL, and it speaks both SQLite
// (modernc.org/sqlite, no cgo) and PostgreSQL (pgx) with the same behaviour; the schema
// comes from goose migrations embedded per dialect.
//
// This file opens and migrates the database; each entity has its own file (runs.go,
// cells.go, groups.go, facets.go, users.go, tokens.go, orgs.go, reports.go …), and
// db.go holds what every query shares: placeholders per dialect and queryRows, the one
// loop over a query's rows.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations
var migrations embed.FS

// Errors callers tell apart.
var (
	ErrNotFound = errors.New("not found")
	// ErrConflict: a run with this id is already stored with a different document.
	ErrConflict = errors.New("a different run document is already stored under this id")
	// ErrNotCounted: the run is stored, but adding it to the counts failed; a later
	// run's counting, or the next Open, adds it.
	ErrNotCounted = errors.New("the run is stored but not yet counted")
)

// Dialects.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Store is the site's database.
type Store struct {
	db      *sql.DB
	dialect string
	// writes counts the changes this Store made to what pages show (runs, reports,
	// users and tokens, a reindex), so that a cache of pages can tell it is stale.
	writes atomic.Uint64
	counts counter // the runs stored whose counts are being added (counting.go)
	// failNextCount makes the next counting pass fail (tests: FailNextCountForTesting).
	failNextCount atomic.Bool
}

// Writes is how many changes to what the site shows this Store has committed. A cache
// keyed by it is current for this instance; another instance's writes it cannot see.
func (s *Store) Writes() uint64 { return s.writes.Load() }

// IsPostgresURL reports whether a --db value names a PostgreSQL server.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens (creating if need be) the database named by dsn — a SQLite file path or
// a postgres:// URL — and brings its schema up to date.
func Open(ctx context.Context, dsn string) (*Store, error) {
	s := &Store{dialect: SQLite}
	var err error
	if IsPostgresURL(dsn) {
		s.dialect = Postgres
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("opening PostgreSQL: %w", err)
		}
		// No parallel workers (unless the URL asks for them): a page's queries read a
		// few thousand rows at most, and PostgreSQL planned the walk of a cell's
		// ranking for a family (51 of a million runs) as a parallel index scan: the
		// page took 120 ms with its two workers, 19 ms without, on two cores (issue 39
		// item 4). Under many readers, workers only take cores from other requests.
		if _, ok := cfg.RuntimeParams["max_parallel_workers_per_gather"]; !ok {
			cfg.RuntimeParams["max_parallel_workers_per_gather"] = "0"
		}
		s.db = stdlib.OpenDB(*cfg)
		s.db.SetMaxOpenConns(16)
		// Keep them open: database/sql keeps 2 idle by default, and the others were
		// closed after each use and opened again for the next (a new server process and
		// a SCRAM exchange each), most of what 16 submitters at once cost.
		s.db.SetMaxIdleConns(16)
	} else {
		path := strings.TrimPrefix(dsn, "sqlite://")
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("creating the database directory: %w", err)
			}
		}
		// WAL lets page reads go on while a run is being stored; busy_timeout makes a
		// second writer wait rather than fail.
		// A larger page cache (64 MB a connection, 4 connections) and memory-mapped
		// reads: ranking pages walk an index and look runs up at random, and a read
		// through mmap or the cache costs no system call. At 1,000,000 runs a family
		// page's walk (about 2,000 lookups in runs_walk) took 43 ms with a 32 MB cache
		// and 31 ms with 64 MB (docs/site.md).
		q := "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-65536)&_pragma=mmap_size(1073741824)&_txlock=immediate"
		s.db, err = sql.Open("sqlite", "file:"+path+q)
		if err != nil {
			return nil, fmt.Errorf("opening SQLite %s: %w", path, err)
		}
		s.db.SetMaxOpenConns(4)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	// The schema, the index and the counts brought up to date: the counts a table
	// holds filled when runs were stored before it existed, then the runs left queued
	// (a crash between storing and counting) counted.
	reindex := func(ctx context.Context) error { _, err := s.Reindex(ctx); return err }
	for _, step := range []func(context.Context) error{s.migrate, reindex, s.fillPairs, s.fillSizes, s.fillBest, s.countQueued, s.Optimize} {
		if err := step(ctx); err != nil {
			s.db.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+s.dialect)
	if err != nil {
		return fmt.Errorf("reading migrations: %w", err)
	}
	d := goose.DialectSQLite3
	if s.dialect == Postgres {
		d = goose.DialectPostgres
	}
	p, err := goose.NewProvider(d, s.db, sub)
	if err != nil {
		return fmt.Errorf("preparing migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrating the database: %w", err)
	}
	return nil
}

// Optimize refreshes the statistics the query planner picks indexes by. Without them
// SQLite cannot tell a selective filter (one GPU) from an unselective one (the common
// profile) and may scan 100,000 rows for a leaderboard page. PostgreSQL's autovacuum
// keeps its own statistics, so this is SQLite only. Call it now and then as runs
// accumulate ("llmbench serve" does, hourly).
func (s *Store) Optimize(ctx context.Context) error {
	if s.dialect != SQLite {
		return nil
	}
	// analysis_limit bounds the work to a sample of each index; 0x10002 analyses
	// every table that has never been analysed.
	if _, err := s.db.ExecContext(ctx, `PRAGMA analysis_limit=2000; PRAGMA optimize=0x10002`); err != nil {
		return fmt.Errorf("optimizing the database: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dialect is SQLite or Postgres.
func (s *Store) Dialect() string { return s.dialect }
