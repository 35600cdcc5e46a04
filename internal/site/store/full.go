package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrFull: the database has no room for what was being written (its disk is full, or
// SQLite's page limit is reached). Nothing was stored; the site answers 503.
var ErrFull = errors.New("the database is full")

// classify marks a database error that means "no room left" with ErrFull, keeping
// the driver's error for the log.
func (s *Store) classify(err error) error {
	if err == nil || errors.Is(err, ErrFull) {
		return err
	}
	if diskFull(err) {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}

func diskFull(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "53100" { // disk_full
		return true
	}
	// The operating system's words, when a driver passes them on as text.
	return strings.Contains(err.Error(), "No space left on device")
}

// SimulateFullDiskForTesting makes every later write that adds rows fail as a full
// disk does: SQLite by capping the file at its current size (max_page_count, on the
// single connection the store then keeps), PostgreSQL by triggers that raise
// SQLSTATE 53100 (disk_full), the error a full disk gives. For tests only.
func (s *Store) SimulateFullDiskForTesting(ctx context.Context) error {
	if s.dialect == SQLite {
		s.db.SetMaxOpenConns(1)
		var pages int64
		if err := s.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
			return err
		}
		_, err := s.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages))
		return err
	}
	stmts := []string{`CREATE OR REPLACE FUNCTION llmbench_disk_full() RETURNS trigger AS $$
		BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$ LANGUAGE plpgsql`}
	for _, t := range []string{"runs", "run_docs", "reports", "tokens"} {
		stmts = append(stmts, `CREATE TRIGGER llmbench_full_`+t+` BEFORE INSERT ON `+t+` FOR EACH ROW EXECUTE FUNCTION llmbench_disk_full()`)
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
