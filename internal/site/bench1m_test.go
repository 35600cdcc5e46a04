package site_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// millionRuns is the leaderboard's scale goal (issue 24): p95 ≤ 50 ms with this many
// runs stored.
const millionRuns = 1_000_000

// BenchmarkLeaderboard1M: BenchmarkLeaderboard100k's pages with 1,000,000 runs stored,
// rendered every time (no page cache). The database is the 100,000-run one copied ten
// times over directly in SQL (seededMillion): each copy of a run has its own id and
// document and the same figures, so ranks hold ten-way ties. Run it with -benchtime
// 200x; LLMBENCH_BENCH_1M_DB names a PostgreSQL database to use instead of the
// SQLite file kept in the temp directory (it is seeded with the 100,000 first).
func BenchmarkLeaderboard1M(b *testing.B) {
	path := seededMillion(b)
	benchPagesOf(b, benchSiteAt(b, path, -1), leaderboardPages)
}

// BenchmarkCellBoard1M: BenchmarkCellBoard100k's pages with 1,000,000 runs stored,
// rendered every time.
func BenchmarkCellBoard1M(b *testing.B) {
	path := seededMillion(b)
	benchPagesOf(b, benchSiteAt(b, path, -1), cellBoardPages)
}

// seededMillion returns a database holding millionRuns runs, making it once.
func seededMillion(b *testing.B) string {
	path := os.Getenv("LLMBENCH_BENCH_1M_DB")
	ctx := context.Background()
	if path == "" {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("llmbench-site-bench-%d-cond.db", millionRuns))
		if _, err := os.Stat(path); err != nil {
			if err := copyFile(seededDB(b), path); err != nil {
				b.Fatalf("copying the 100,000-run database: %v", err)
			}
		}
	} else if _, err := seedRuns(ctx, path); err != nil {
		b.Fatalf("seeding %s: %v", path, err)
	}
	st, err := store.Open(ctx, path) // brings the schema up to date
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	n, err := countRows(ctx, path, "runs")
	if err != nil {
		b.Fatal(err)
	}
	if n >= millionRuns {
		return path
	}
	start := time.Now()
	if err := multiplyRuns(ctx, path, millionRuns/benchRuns); err != nil {
		b.Fatalf("copying runs to %d: %v", millionRuns, err)
	}
	b.Logf("copied %s to %d runs in %v", path, millionRuns, time.Since(start).Round(time.Second))
	return path
}

// openBenchDB opens the database at dsn directly, without the store.
func openBenchDB(dsn string) (*sql.DB, error) {
	if store.IsPostgresURL(dsn) {
		return sql.Open("pgx", dsn)
	}
	return sql.Open("sqlite", dsn)
}

func countRows(ctx context.Context, dsn, table string) (int, error) {
	db, err := openBenchDB(dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n)
	return n, err
}

// multiplyRuns copies each of the benchRuns seeded runs times−1 more times, with ids
// "<id>-<k>" (in the row, the document and its metrics), and scales the counts that
// run_groups, run_pairs, run_sizes, metric_cells and cell_best keep. Every copy is one
// transaction.
func multiplyRuns(ctx context.Context, dsn string, times int) error {
	db, err := openBenchDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	runCols, err := columns(ctx, db, "runs")
	if err != nil {
		return err
	}
	metricCols, err := columns(ctx, db, "run_metrics")
	if err != nil {
		return err
	}
	for k := 1; k < times; k++ {
		suffix := fmt.Sprintf("'-%d'", k)
		if done, err := copied(ctx, db, suffix); err != nil || done {
			if err != nil {
				return fmt.Errorf("copy %d: %w", k, err)
			}
			continue // an interrupted making of the database did this copy already
		}
		stmts := []string{
			copyRows("runs", runCols, map[string]string{"id": "id || " + suffix}),
			`INSERT INTO run_docs (id, doc_sha256, doc) SELECT d.id || ` + suffix + `, d.doc_sha256,
				replace(d.doc, '"id":"' || d.id || '"', '"id":"' || d.id || ` + suffix + ` || '"') FROM run_docs d WHERE length(d.id) = 12`,
			copyRows("run_metrics", metricCols, map[string]string{"run_id": "run_id || " + suffix}),
		}
		if err := inTx(ctx, db, stmts); err != nil {
			return fmt.Errorf("copy %d: %w", k, err)
		}
	}
	return inTx(ctx, db, []string{
		fmt.Sprintf(`UPDATE metric_cells SET runs = runs * %d`, times),
		fmt.Sprintf(`UPDATE run_groups SET runs = runs * %d`, times),
		fmt.Sprintf(`UPDATE run_pairs SET runs = runs * %d`, times),
		fmt.Sprintf(`UPDATE run_sizes SET runs = runs * %d`, times),
		// Each copy has its original's figures and an id that sorts after it: the best
		// run of every cell_best row stays the original.
		fmt.Sprintf(`UPDATE cell_best SET runs = runs * %d`, times),
		`ANALYZE`,
	})
}

// copied says whether the copy of the seeded runs with this id suffix is stored: each
// copy is one transaction, so a making that was interrupted resumes after its last.
func copied(ctx context.Context, db *sql.DB, suffix string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE id = (SELECT MIN(id) FROM runs WHERE length(id) = 12) || `+suffix).Scan(&n)
	return n > 0, err
}

// copyRows is an INSERT … SELECT copying the seeded runs' rows of table, with the
// columns in replace computed instead.
func copyRows(table string, cols []string, replace map[string]string) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = c
		if e, ok := replace[c]; ok {
			sel[i] = e
		}
	}
	idCol := "id"
	if table == "run_metrics" {
		idCol = "run_id"
	}
	return fmt.Sprintf(`INSERT INTO %s (%s) SELECT %s FROM %s WHERE length(%s) = 12`,
		table, strings.Join(cols, ", "), strings.Join(sel, ", "), table, idCol)
}

func columns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` LIMIT 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

func inTx(ctx context.Context, db *sql.DB, stmts []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%.60s…: %w", q, err)
		}
	}
	return tx.Commit()
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := to + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, to)
}
