// Package store owns the site's data: runs (each run document stored verbatim, with
// summary columns to filter by and every value of every registered metric to rank
// by), users and their hashed API tokens, organisations, written reports, and the rate
// limits' buckets that instances share. It is the only place with SQL, and it speaks both
// SQLite (modernc.org/sqlite, no cgo) and PostgreSQL (pgx) with the same behaviour;
// the schema comes from goose migrations embedded per dialect.
package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/llmbench/llmbench/internal/site/metric"
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
		s.db, err = sql.Open("pgx", dsn)
		if err != nil {
			return nil, fmt.Errorf("opening PostgreSQL: %w", err)
		}
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
		// A larger page cache and memory-mapped reads: ranking pages walk an index
		// and look runs up at random, and a read through mmap costs no system call.
		q := "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-32768)&_pragma=mmap_size(1073741824)&_txlock=immediate"
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
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	if _, err := s.Reindex(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	if err := s.countQueued(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	if err := s.fillPairs(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	if err := s.Optimize(ctx); err != nil {
		s.db.Close()
		return nil, err
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

// rebind turns the ? placeholders every query here is written with into PostgreSQL's
// $1, $2, …; no query has a literal '?'.
func (s *Store) rebind(q string) string {
	if s.dialect != Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *Store) exec(ctx context.Context, q execer, query string, args ...any) (sql.Result, error) {
	return q.ExecContext(ctx, s.rebind(query), args...)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ---- runs ----

// RunRecord is a run as the site holds it.
type RunRecord struct {
	ID string
	metric.Summary
	CreatedAt   time.Time // when the run was made (the document's created_at)
	SubmittedAt time.Time // when the site received it
	Submitter   string    // the user whose token submitted it
	Org         string    // that user's organisation, if any
}

// PutRun stores a run document verbatim with its summary and metric values, in one
// transaction, and then adds it to the counts (counting.go). It is idempotent by id:
// storing the same bytes again is not an error (created is false), and different
// bytes under a stored id give ErrConflict and change nothing. An error wrapping
// ErrNotCounted says that the run is stored but not yet counted.
func (s *Store) PutRun(ctx context.Context, rec RunRecord, doc []byte) (created bool, err error) {
	sum := sha256.Sum256(doc)
	digest := hex.EncodeToString(sum[:])
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	defer tx.Rollback() // no-op after Commit
	var existing string
	err = tx.QueryRowContext(ctx, s.rebind(`SELECT doc_sha256 FROM run_docs WHERE id = ?`), rec.ID).Scan(&existing)
	switch {
	case err == nil:
		if existing == digest {
			return false, nil
		}
		return false, ErrConflict
	case !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	_, err = s.exec(ctx, tx, `INSERT INTO runs (id, kind, title, model, gpu, gpu_count, vram_gb,
		engine, engine_version, quantization, profile, decode_tok_s, peak_tok_s, prefill32k_tok_s, tok_s_per_gb,
		created_at, submitted_at, submitter, org, family, params_b, author, mode)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		rec.ID, rec.Kind, rec.Title, rec.Model, rec.GPU, rec.GPUCount, rec.VRAMGB,
		rec.Engine, rec.EngineVersion, rec.Quantization, rec.Profile, rec.DecodeTokS, rec.PeakTokS, rec.Prefill32KTokS, rec.TokSPerGB,
		rec.CreatedAt.UTC(), rec.SubmittedAt.UTC(), rec.Submitter, rec.Org, rec.Family, rec.ParamsB, rec.Author, modeOr(rec.Mode))
	if err != nil {
		// Two submissions of one id racing: the loser sees the winner's row.
		if again, gerr := s.runDigest(ctx, rec.ID); gerr == nil {
			if again == digest {
				return false, nil
			}
			return false, ErrConflict
		}
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	if _, err := s.exec(ctx, tx, `INSERT INTO run_docs (id, doc_sha256, doc) VALUES (?, ?, ?)`, rec.ID, digest, string(doc)); err != nil {
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	cells, err := s.putCells(ctx, tx, rec.ID, rec.Cells)
	if err == nil {
		err = s.putAccuracy(ctx, tx, rec.ID, rec.Family, rec.Accuracy)
	}
	if err != nil {
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	// Its counts come after, in a transaction with the others stored meanwhile
	// (counting.go): this one touches no row that another run's does.
	if _, err := s.exec(ctx, tx, `INSERT INTO run_count_queue (run_id) VALUES (?)`, rec.ID); err != nil {
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("storing run %s: %w", rec.ID, s.classify(err))
	}
	defer s.writes.Add(1)
	if err := s.count(ctx, rec, cells); err != nil {
		return true, fmt.Errorf("run %s: %w: %w", rec.ID, ErrNotCounted, err)
	}
	return true, nil
}

// groupDims are what run_groups counts runs by: each dimension (also the runs column
// holding a run's value of it), that value in a record, and whether the group keeps
// the best measured decode and peak tok/s and the largest VRAM per GPU. countGroups
// adds a run to them as it is stored; recount rebuilds them from runs.
var groupDims = []struct {
	dim        string
	of         func(RunRecord) string
	best, vram bool
}{
	{"model", func(r RunRecord) string { return r.Model }, true, false},
	{"gpu", func(r RunRecord) string { return r.GPU }, true, true},
	{"engine", func(r RunRecord) string { return r.Engine }, false, false},
	{"quantization", func(r RunRecord) string { return r.Quantization }, false, false},
	{"profile", func(r RunRecord) string { return r.Profile }, false, false},
	{"family", func(r RunRecord) string { return r.Family }, true, false},
	{"mode", func(r RunRecord) string { return modeOr(r.Mode) }, false, false},
}

// modeOr is a record's mode, matrix when it was built without one.
func modeOr(mode string) string {
	if mode == "" {
		return metric.ModeMatrix
	}
	return mode
}

// keepMax is the larger of the stored and the new value of col, NULLs ignored (in
// both dialects: SQLite's MAX(a, b) is NULL when either is, PostgreSQL has no MAX(a, b)).
func keepMax(col string) string {
	return "CASE WHEN excluded." + col + " IS NOT NULL AND (run_groups." + col + " IS NULL OR excluded." + col + " > run_groups." + col +
		") THEN excluded." + col + " ELSE run_groups." + col + " END"
}

func (s *Store) runDigest(ctx context.Context, id string) (string, error) {
	var d string
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT doc_sha256 FROM run_docs WHERE id = ?`), id).Scan(&d)
	return d, err
}

const runColumns = `id, kind, title, model, gpu, gpu_count, vram_gb, engine, engine_version, quantization, profile,
	decode_tok_s, peak_tok_s, prefill32k_tok_s, tok_s_per_gb, created_at, submitted_at, submitter, org, family, params_b, author, mode`

// prefixed qualifies each column of a comma-separated list with a table alias.
func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner, extra ...any) (RunRecord, error) {
	var r RunRecord
	dest := []any{&r.ID, &r.Kind, &r.Title, &r.Model, &r.GPU, &r.GPUCount, &r.VRAMGB, &r.Engine, &r.EngineVersion,
		&r.Quantization, &r.Profile, &r.DecodeTokS, &r.PeakTokS, &r.Prefill32KTokS, &r.TokSPerGB,
		&r.CreatedAt, &r.SubmittedAt, &r.Submitter, &r.Org, &r.Family, &r.ParamsB, &r.Author, &r.Mode}
	err := sc.Scan(append(dest, extra...)...)
	r.CreatedAt, r.SubmittedAt = r.CreatedAt.UTC(), r.SubmittedAt.UTC()
	return r, err
}

// Run returns a stored run's record and its document exactly as submitted.
func (s *Store) Run(ctx context.Context, id string) (RunRecord, []byte, error) {
	var doc string
	r, err := scanRun(s.db.QueryRowContext(ctx, s.rebind(`SELECT `+prefixed("r.", runColumns)+`, d.doc FROM runs r JOIN run_docs d ON d.id = r.id WHERE r.id = ?`), id), &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return RunRecord{}, nil, ErrNotFound
	}
	if err != nil {
		return RunRecord{}, nil, fmt.Errorf("reading run %s: %w", id, err)
	}
	return r, []byte(doc), nil
}

// Query selects runs. Empty fields do not filter; a model, GPU, engine, quantization
// or family filters in any case (spelled).
type Query struct {
	Model, GPU, Engine, Quantization, Profile, Org, Submitter string
	// Family keeps the runs of one model family; Author the runs whose document names
	// this author; SizeMin and SizeMax (billions of parameters, 0 = no bound; Max
	// exclusive) the models of a size.
	Family, Author   string
	SizeMin, SizeMax float64
	// Mode keeps the matrix runs or the open-loop runs (ModeMatrix, ModeRate).
	Mode string
	// Kinds keeps only runs of these kinds (measured, emulated, predicted); empty = all.
	Kinds []string
	// Accuracy hides runs far below the best accuracy of their model (accuracy.go).
	Accuracy AccuracyFilter
	// Sort ranks by a metric (runs without that figure are left out); empty = newest first.
	Sort   metric.Metric
	Limit  int // at most 500; 0 = 50
	Offset int
	// spellings are the names the store holds for a filter's value, by column
	// (spelled): a filter matches any of them.
	spellings map[string][]string
}

// filter is one condition of a Query on a column — its value, in every spelling the
// store holds (spelled), else as given — with the run_groups dimension that counts
// its values (empty when none does).
type filter struct {
	col, dim string
	values   []string
}

func (q Query) filters() []filter {
	var fs []filter
	for _, f := range []struct{ col, dim, value string }{{"model", "model", q.Model}, {"gpu", "gpu", q.GPU}, {"engine", "engine", q.Engine},
		{"quantization", "quantization", q.Quantization}, {"profile", "profile", q.Profile},
		{"family", "family", q.Family}, {"mode", "mode", q.Mode},
		{"org", "", q.Org}, {"submitter", "", q.Submitter}, {"author", "", q.Author}} {
		if v := normalize(f.value); v != "" {
			vals := q.spellings[f.col]
			if len(vals) == 0 {
				vals = []string{v}
			}
			fs = append(fs, filter{f.col, f.dim, vals})
		}
	}
	return fs
}

// normalize folds a filter value the way stored names are compared.
func normalize(s string) string { return strings.TrimSpace(s) }

// sortColumn is the runs column holding a ranking figure; only these fixed strings
// reach SQL.
func sortColumn(m metric.Metric) string {
	switch m {
	case metric.MetricPeak:
		return "peak_tok_s"
	case metric.MetricPrefill32K:
		return "prefill32k_tok_s"
	case metric.MetricPerGB:
		return "tok_s_per_gb"
	default:
		return "decode_tok_s"
	}
}

// in is "col = ?" for one value and "col IN (?, …)" for several, with the values as
// arguments.
func in(col string, values []string) (string, []any) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	if len(values) == 1 {
		return col + " = ?", args
	}
	return col + " IN (?" + strings.Repeat(", ?", len(values)-1) + ")", args
}

// anyIndex, as where's lead, leaves the choice of index to the database.
const anyIndex = "*"

// noIndex wraps a text column so that the database cannot use its index for a
// condition (the value is unchanged): SQLite's unary +, PostgreSQL's || ”.
func (s *Store) noIndex(col string) string {
	if s.dialect == SQLite {
		return "+" + col
	}
	return "(" + col + " || '')"
}

// noIndexOrder is ORDER BY's expression for col that no index can serve, so that the
// database sorts what the lead filter found instead of walking a ranking index.
func (s *Store) noIndexOrder(col string) string {
	switch {
	case s.dialect == SQLite:
		return "+" + col
	case col == "submitted_at":
		return "(" + col + " + interval '0 seconds')"
	default:
		return "(" + col + " + 0)"
	}
}

// where builds the WHERE clause. lead names the one filter column whose index the
// database should start from ("" = none: walk the ranking index; anyIndex: let the
// planner choose); every other filter column is wrapped by noIndex.
func (s *Store) where(q Query, lead string) (string, []any) {
	conds, args := s.conditions(q, lead)
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// conditions are where's conditions, to be joined with others.
func (s *Store) conditions(q Query, lead string) ([]string, []any) {
	var conds []string
	var args []any
	col := func(c string) string {
		if lead != anyIndex && c != lead {
			return s.noIndex(c)
		}
		return c
	}
	for _, f := range q.filters() {
		c, a := in(col(f.col), f.values)
		conds, args = append(conds, c), append(args, a...)
	}
	if len(q.Kinds) > 0 {
		conds = append(conds, col("kind")+" IN (?"+strings.Repeat(", ?", len(q.Kinds)-1)+")")
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	if q.SizeMin > 0 {
		conds = append(conds, "params_b >= ?")
		args = append(args, q.SizeMin)
	}
	if q.SizeMax > 0 {
		conds = append(conds, "params_b > 0 AND params_b < ?")
		args = append(args, q.SizeMax)
	}
	if q.Sort != "" {
		conds = append(conds, sortColumn(q.Sort)+" IS NOT NULL")
	}
	if q.Accuracy.On {
		c, a := q.Accuracy.condition()
		conds, args = append(conds, c), append(args, a...)
	}
	return conds, args
}

// leadFilter picks how the database should find a page of q: walk the ranking index and
// skip the runs the filters reject, or start from the narrowest filter's index and
// sort what it finds. It compares the rows each reads: the walk reads about
// (offset + limit) ÷ the share of runs the filters keep (estimated from run_groups'
// counts, as if the filters were independent, then ×4 because they often are not),
// the other reads the narrowest filter's runs (the factor is 16 on PostgreSQL). empty is true when a filter value has
// no runs at all, or two of the filters' values no run has together (run_pairs,
// pairs.go). Neither planner gets this right alone: SQLite has no counts per value,
// and both take filters as independent, so a walk for two filters that never occur
// together reads every run.
func (s *Store) leadFilter(ctx context.Context, q Query) (lead string, empty bool, err error) {
	return s.leadFilterFor(ctx, q, false)
}

// leadFilterFor is leadFilter for a runs query (cells false) or for one joined to a
// cell's values (cells true). Joined, starting from a filter costs a lookup into
// run_metrics per run on either database, as a walk costs one into runs: PostgreSQL's
// bitmap scan no longer saves the narrow way anything, so its factor is SQLite's.
func (s *Store) leadFilterFor(ctx context.Context, q Query, cells bool) (lead string, empty bool, err error) {
	fs := q.filters()
	if len(fs) == 0 {
		return "", false, nil
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(runs), 0) FROM run_groups WHERE dim = 'profile'`).Scan(&total); err != nil {
		return "", false, fmt.Errorf("counting all runs: %w", err)
	}
	if total == 0 {
		return "", true, nil
	}
	best, bestCount := "", -1
	share := 1.0
	for _, f := range fs {
		n := 0 // org and submitter have no counts: take them as narrow
		if f.dim != "" {
			var names int
			c, a := in("name", f.values)
			err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*), COALESCE(SUM(runs), 0) FROM run_groups WHERE dim = ? AND `+c), append([]any{f.dim}, a...)...).Scan(&names, &n)
			if err != nil {
				return "", false, fmt.Errorf("counting runs of %s %q: %w", f.dim, f.values, err)
			}
			if names == 0 {
				return "", true, nil
			}
		}
		share *= float64(n) / float64(total)
		if bestCount < 0 || n < bestCount {
			best, bestCount = f.col, n
		}
	}
	// A row read walking an index costs PostgreSQL a random heap fetch; the lead
	// filter's rows come in a bitmap scan, in heap order. Hence its larger factor.
	factor := 4.0
	if s.dialect == Postgres && !cells {
		factor = 16
	}
	together, known, err := s.fewestTogether(ctx, fs)
	if err != nil {
		return "", false, err
	}
	if known && together == 0 {
		return "", true, nil // two of the values never occur together
	}
	if len(fs) > 1 || q.SizeMin > 0 || q.SizeMax > 0 {
		// Filters together may match far fewer runs than their counts suggest (a GPU
		// and a model size that never occur together): a walk would then read every
		// run. Walking beats starting from the narrowest filter only if the filters
		// match at least need runs; count them from that filter's index, stopping at
		// need, which costs at most what starting there would.
		need := int(math.Ceil(2*float64(q.Offset+q.Limit)*float64(total)/float64(max(bestCount, 1)))) + 1
		if known && together < need {
			return best, false, nil // they match fewer than need: no need to count them
		}
		conds, args := s.conditions(q, best)
		var n int
		err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE `+strings.Join(conds, " AND ")+` LIMIT ?) AS matched`),
			append(args, need)...).Scan(&n)
		if err != nil {
			return "", false, fmt.Errorf("counting the runs the filters match: %w", err)
		}
		switch {
		case n == 0:
			return "", true, nil
		case n < need:
			return best, false, nil
		default:
			return "", false, nil
		}
	}
	walk := float64(total)
	if share > 0 {
		walk = min(walk, factor*float64(q.Offset+q.Limit)/share)
	}
	if float64(bestCount) < walk {
		return best, false, nil
	}
	return "", false, nil
}

// ListRuns returns the runs q selects, ranked or newest first.
func (s *Store) ListRuns(ctx context.Context, q Query) ([]RunRecord, error) {
	q, err := s.spelled(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Limit = min(q.Limit, 500)
	q.Offset = max(q.Offset, 0)
	lead, empty, err := s.leadFilter(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	if empty {
		return nil, nil
	}
	hint := lead
	if lead == "" && s.dialect == Postgres {
		// PostgreSQL's planner walks the ranking index by itself for broad filters (it
		// has per-value statistics); wrapping the filters would hide those from it.
		hint = anyIndex
	}
	where, args := s.where(q, hint)
	orderCol := "submitted_at"
	if q.Sort != "" {
		orderCol = sortColumn(q.Sort)
	}
	if lead != "" {
		orderCol = s.noIndexOrder(orderCol) // sort what the filter's index found; do not walk the ranking index
	}
	order := " ORDER BY " + orderCol + " DESC, id"
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT `+runColumns+` FROM runs`+where+order+` LIMIT ? OFFSET ?`),
		append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	defer rows.Close()
	var out []RunRecord
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("listing runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	return out, nil
}

// CountRuns counts the runs q selects (ignoring its paging).
func (s *Store) CountRuns(ctx context.Context, q Query) (int, error) {
	q, err := s.spelled(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("counting runs: %w", err)
	}
	where, args := s.where(q, anyIndex)
	var n int
	if err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*) FROM runs`+where), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting runs: %w", err)
	}
	return n, nil
}

// Facet is one value of a filter with the number of runs that have it.
type Facet struct {
	Value string `json:"value"`
	Runs  int    `json:"runs"`
}

// Facets are the values each leaderboard filter can take.
type Facets struct {
	Models, GPUs, Engines, Quantizations, Profiles, Families, Modes []Facet
}

// Facets lists the distinct models, GPUs, engines, quantizations and profiles.
func (s *Store) Facets(ctx context.Context) (Facets, error) {
	var f Facets
	rows, err := s.db.QueryContext(ctx, `SELECT dim, name, runs FROM run_groups ORDER BY dim, name`)
	if err != nil {
		return f, fmt.Errorf("listing filter values: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var dim string
		var v Facet
		if err := rows.Scan(&dim, &v.Value, &v.Runs); err != nil {
			return f, fmt.Errorf("listing filter values: %w", err)
		}
		if v.Value == "" {
			continue
		}
		switch dim {
		case "model":
			f.Models = append(f.Models, v)
		case "gpu":
			f.GPUs = append(f.GPUs, v)
		case "engine":
			f.Engines = append(f.Engines, v)
		case "quantization":
			f.Quantizations = append(f.Quantizations, v)
		case "profile":
			f.Profiles = append(f.Profiles, v)
		case "family":
			f.Families = append(f.Families, v)
		case "mode":
			f.Modes = append(f.Modes, v)
		}
	}
	if err := rows.Err(); err != nil {
		return f, fmt.Errorf("listing filter values: %w", err)
	}
	for _, vs := range []*[]Facet{&f.Models, &f.GPUs, &f.Engines, &f.Quantizations, &f.Profiles, &f.Families, &f.Modes} {
		*vs = mergeFacets(*vs)
	}
	return f, nil
}

// GroupStat summarises the runs of one GPU or one model.
type GroupStat struct {
	Name       string   `json:"name"`
	Runs       int      `json:"runs"`
	BestDecode *float64 `json:"best_decode_tok_s,omitempty"` // best single-stream decode tok/s at context 0, measured runs
	BestPeak   *float64 `json:"best_peak_tok_s,omitempty"`
	VRAMGB     *float64 `json:"vram_gb,omitempty"` // GPUs only: the largest total seen
}

// GPUs lists every GPU runs were made on.
func (s *Store) GPUs(ctx context.Context) ([]GroupStat, error) { return s.groups(ctx, "gpu") }

// Models lists every model runs were made of.
func (s *Store) Models(ctx context.Context) ([]GroupStat, error) { return s.groups(ctx, "model") }

// GPU returns the summary of one GPU's runs; ErrNotFound when no run was made on it.
func (s *Store) GPU(ctx context.Context, name string) (GroupStat, error) {
	return s.group(ctx, "gpu", name)
}

// Model returns the summary of one model's runs; ErrNotFound when no run was made of it.
func (s *Store) Model(ctx context.Context, name string) (GroupStat, error) {
	return s.group(ctx, "model", name)
}

// group is one group's summary, named as the store holds it: its name's spellings in
// any case together, as a filter by it finds them (spelled).
func (s *Store) group(ctx context.Context, dim, name string) (GroupStat, error) {
	gs, err := s.groupSpellings(ctx, dim, name)
	if err != nil {
		return GroupStat{}, err
	}
	if gs = mergeSpellings(gs); len(gs) == 0 {
		return GroupStat{}, ErrNotFound
	}
	return gs[0], nil
}

// groups lists dim's groups, a name's spellings in any case merged into one
// (mergeSpellings), by name.
func (s *Store) groups(ctx context.Context, dim string) ([]GroupStat, error) {
	gs, err := s.groupRows(ctx, dim, "")
	return mergeSpellings(gs), err
}

// groupRows reads run_groups' rows of dim that cond (with args) keeps, as they are.
func (s *Store) groupRows(ctx context.Context, dim, cond string, args ...any) ([]GroupStat, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT name, runs, best_decode, best_peak, vram_gb FROM run_groups WHERE dim = ?`+cond),
		append([]any{dim}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("listing by %s: %w", dim, s.classify(err))
	}
	defer rows.Close()
	var out []GroupStat
	for rows.Next() {
		var g GroupStat
		if err := rows.Scan(&g.Name, &g.Runs, &g.BestDecode, &g.BestPeak, &g.VRAMGB); err != nil {
			return nil, fmt.Errorf("listing by %s: %w", dim, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// ---- users, tokens, organisations ----

// User is someone who may submit runs.
type User struct {
	ID   int64
	Name string // "@name"
	Org  string // "" when none
}

// TokenPrefix starts every API token, so that a leaked one is recognisable.
const TokenPrefix = "llmb_"

// ValidUserName reports whether user is a name a token may submit as: @ and then 1–63
// letters (of any script), digits, '-', '_' or '.', what CreateToken's refusal says.
// The name is shown on pages and in links: javascript:alert(9003) was accepted when
// only a few characters were refused.
func ValidUserName(user string) bool {
	name, ok := strings.CutPrefix(user, "@")
	if !ok || name == "" || utf8.RuneCountInString(user) > 64 {
		return false
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return false
		}
	}
	return true
}

// HashToken is how a token is stored: its SHA-256, never the token itself. Tokens are
// 256 random bits, so a plain hash is enough (no password stretching needed).
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// CreateToken creates the user (and organisation) if new and returns a new API token
// for them. Only its hash is stored.
func (s *Store) CreateToken(ctx context.Context, user, org string) (string, error) {
	user = strings.TrimSpace(user)
	if !strings.HasPrefix(user, "@") {
		user = "@" + user
	}
	if !ValidUserName(user) {
		return "", fmt.Errorf("user %q: use @name (letters, digits, - _ .; up to 64 characters)", user)
	}
	org = strings.TrimSpace(org)
	if len(org) > 100 {
		return "", fmt.Errorf("organisation name is over 100 characters")
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("making a token: %w", err)
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	now := time.Now().UTC()

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("creating a token: %w", err)
	}
	defer tx.Rollback()
	var orgID sql.NullInt64
	if org != "" {
		id, err := s.ensure(ctx, tx, `SELECT id FROM orgs WHERE name = ?`, `INSERT INTO orgs (name, created_at) VALUES (?, ?)`, org, now)
		if err != nil {
			return "", fmt.Errorf("creating organisation %s: %w", org, err)
		}
		orgID = sql.NullInt64{Int64: id, Valid: true}
	}
	userID, err := s.ensure(ctx, tx, `SELECT id FROM users WHERE name = ?`, `INSERT INTO users (name, created_at) VALUES (?, ?)`, user, now)
	if err != nil {
		return "", fmt.Errorf("creating user %s: %w", user, err)
	}
	if orgID.Valid {
		if _, err := s.exec(ctx, tx, `UPDATE users SET org_id = ? WHERE id = ?`, orgID, userID); err != nil {
			return "", fmt.Errorf("setting %s's organisation: %w", user, err)
		}
	}
	if _, err := s.exec(ctx, tx, `INSERT INTO tokens (user_id, hash, created_at) VALUES (?, ?, ?)`, userID, HashToken(token), now); err != nil {
		return "", fmt.Errorf("storing the token: %w", s.classify(err))
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("creating a token: %w", s.classify(err))
	}
	s.writes.Add(1)
	return token, nil
}

// ensure returns the id of the row the select finds, inserting it first if absent.
func (s *Store) ensure(ctx context.Context, tx *sql.Tx, sel, ins, name string, now time.Time) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, s.rebind(sel), name).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if _, err := s.exec(ctx, tx, ins, name, now); err != nil {
		return 0, err
	}
	err = tx.QueryRowContext(ctx, s.rebind(sel), name).Scan(&id)
	return id, err
}

// UserByToken finds the user a token belongs to; ErrNotFound for an unknown token.
// The database compares hashes, never tokens: how long a lookup takes can tell an
// attacker only about the SHA-256 of their own guess, which says nothing about any
// stored token (finding a token whose hash shares a prefix is a preimage search), so
// the lookup needs no constant-time comparison of its own.
func (s *Store) UserByToken(ctx context.Context, token string) (User, error) {
	var u User
	var org sql.NullString
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT u.id, u.name, o.name FROM tokens t
		JOIN users u ON u.id = t.user_id LEFT JOIN orgs o ON o.id = u.org_id WHERE t.hash = ?`), HashToken(token)).
		Scan(&u.ID, &u.Name, &org)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("checking a token: %w", err)
	}
	u.Org = org.String
	return u, nil
}

// TokenInfo is what the site knows of a token: never the token, only whose it is, when
// it was made, and an ID (the start of its hash) to revoke it by.
type TokenInfo struct {
	ID        string    `json:"id"`
	User      string    `json:"user"`
	CreatedAt time.Time `json:"created_at"`
}

// tokenIDLen is how many hex digits of a token's hash name it: 48 bits, enough that two
// tokens of one site never share an ID by chance.
const tokenIDLen = 12

// Tokens lists every token, oldest first.
func (s *Store) Tokens(ctx context.Context) ([]TokenInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.hash, u.name, t.created_at FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.created_at, t.id`)
	if err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	defer rows.Close()
	var out []TokenInfo
	for rows.Next() {
		var ti TokenInfo
		var hash string
		if err := rows.Scan(&hash, &ti.User, &ti.CreatedAt); err != nil {
			return nil, fmt.Errorf("listing tokens: %w", err)
		}
		ti.ID, ti.CreatedAt = hash[:min(tokenIDLen, len(hash))], ti.CreatedAt.UTC()
		out = append(out, ti)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	return out, nil
}

// RevokeToken deletes one token, named by the token itself (llmb_…) or by its ID from
// Tokens; an ID must match exactly one token. It returns ErrNotFound when none matches.
func (s *Store) RevokeToken(ctx context.Context, tokenOrID string) error {
	tokenOrID = strings.TrimSpace(tokenOrID)
	if strings.HasPrefix(tokenOrID, TokenPrefix) {
		return s.deleteTokens(ctx, `DELETE FROM tokens WHERE hash = ?`, 1, HashToken(tokenOrID))
	}
	if len(tokenOrID) != tokenIDLen || strings.Trim(tokenOrID, "0123456789abcdef") != "" {
		return fmt.Errorf("%q is neither a token (%s…) nor a token ID (%d hex digits, from llmbench serve token list)", tokenOrID, TokenPrefix, tokenIDLen)
	}
	// The ID is hex only, so it cannot carry LIKE wildcards.
	return s.deleteTokens(ctx, `DELETE FROM tokens WHERE hash LIKE ?`, 1, tokenOrID+"%")
}

// RevokeUserTokens deletes every token of a user and says how many there were.
func (s *Store) RevokeUserTokens(ctx context.Context, user string) (int64, error) {
	user = strings.TrimSpace(user)
	if !strings.HasPrefix(user, "@") {
		user = "@" + user
	}
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM tokens WHERE user_id IN (SELECT id FROM users WHERE name = ?)`), user)
	if err != nil {
		return 0, fmt.Errorf("revoking %s's tokens: %w", user, err)
	}
	s.writes.Add(1)
	return res.RowsAffected()
}

// deleteTokens deletes what the statement matches inside a transaction, and keeps the
// deletion only if it removed exactly want rows: an ambiguous ID revokes nothing.
func (s *Store) deleteTokens(ctx context.Context, query string, want int64, arg string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("revoking a token: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, s.rebind(query), arg)
	if err != nil {
		return fmt.Errorf("revoking a token: %w", err)
	}
	n, err := res.RowsAffected()
	switch {
	case err != nil:
		return fmt.Errorf("revoking a token: %w", err)
	case n == 0:
		return ErrNotFound
	case n != want:
		return fmt.Errorf("%d tokens match; give the token itself", n)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("revoking a token: %w", err)
	}
	s.writes.Add(1)
	return nil
}

// Org is an organisation with its members and how many runs they submitted.
type Org struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
	Runs    int      `json:"runs"`
}

// Orgs lists organisations, each with its members and run count.
func (s *Store) Orgs(ctx context.Context) ([]Org, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT o.name, u.name FROM orgs o LEFT JOIN users u ON u.org_id = o.id ORDER BY o.name, u.name`)
	if err != nil {
		return nil, fmt.Errorf("listing organisations: %w", err)
	}
	var out []Org
	for rows.Next() {
		var org string
		var member sql.NullString
		if err := rows.Scan(&org, &member); err != nil {
			rows.Close()
			return nil, fmt.Errorf("listing organisations: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].Name != org {
			out = append(out, Org{Name: org})
		}
		if member.Valid {
			out[len(out)-1].Members = append(out[len(out)-1].Members, member.String)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing organisations: %w", err)
	}
	counts, err := s.runsPer(ctx, "org")
	if err != nil {
		return nil, fmt.Errorf("listing organisations: %w", err)
	}
	for i := range out {
		out[i].Runs = counts[out[i].Name]
	}
	return out, nil
}

// Submitter is a user with their organisation and how many runs they submitted.
type Submitter struct {
	Name string `json:"name"`
	Org  string `json:"org,omitempty"`
	Runs int    `json:"runs"`
}

// Submitters lists every user, with their organisation and run count.
func (s *Store) Submitters(ctx context.Context) ([]Submitter, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT u.name, COALESCE(o.name, '') FROM users u LEFT JOIN orgs o ON o.id = u.org_id ORDER BY u.name`)
	if err != nil {
		return nil, fmt.Errorf("listing submitters: %w", err)
	}
	var out []Submitter
	for rows.Next() {
		var u Submitter
		if err := rows.Scan(&u.Name, &u.Org); err != nil {
			rows.Close()
			return nil, fmt.Errorf("listing submitters: %w", err)
		}
		out = append(out, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing submitters: %w", err)
	}
	counts, err := s.runsPer(ctx, "submitter")
	if err != nil {
		return nil, fmt.Errorf("listing submitters: %w", err)
	}
	for i := range out {
		out[i].Runs = counts[out[i].Name]
	}
	return out, nil
}

// runsPer counts the runs of each value of col ("org" or "submitter": the two columns
// run_groups does not count), in one query rather than one per value.
func (s *Store) runsPer(ctx context.Context, col string) (map[string]int, error) {
	if col != "org" && col != "submitter" {
		return nil, fmt.Errorf("counting runs per %q: not a column runs are counted by", col)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+col+`, COUNT(*) FROM runs GROUP BY `+col)
	if err != nil {
		return nil, fmt.Errorf("counting runs per %s: %w", col, err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, fmt.Errorf("counting runs per %s: %w", col, err)
		}
		counts[name] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting runs per %s: %w", col, err)
	}
	return counts, nil
}

// ---- reports ----

// Report is a written comparison, in Markdown.
type Report struct {
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	BodyMD    string    `json:"body_md"`
	Author    string    `json:"author"`
	Org       string    `json:"org,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// PutReport stores a new report; ErrConflict if the slug is taken.
func (s *Store) PutReport(ctx context.Context, r Report) error {
	if _, err := s.Report(ctx, r.Slug); err == nil {
		return ErrConflict
	}
	_, err := s.exec(ctx, s.db, `INSERT INTO reports (slug, title, body_md, author, org, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Slug, r.Title, r.BodyMD, r.Author, r.Org, r.CreatedAt.UTC())
	if err != nil {
		// Two reports racing for one slug: the loser's insert breaks the key.
		if _, gerr := s.Report(ctx, r.Slug); gerr == nil {
			return ErrConflict
		}
		return fmt.Errorf("storing report %s: %w", r.Slug, s.classify(err))
	}
	s.writes.Add(1)
	return nil
}

// Report returns one report.
func (s *Store) Report(ctx context.Context, slug string) (Report, error) {
	var r Report
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT slug, title, body_md, author, org, created_at FROM reports WHERE slug = ?`), slug).
		Scan(&r.Slug, &r.Title, &r.BodyMD, &r.Author, &r.Org, &r.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("reading report %s: %w", slug, err)
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return r, nil
}

// Reports lists reports, newest first (without their bodies).
func (s *Store) Reports(ctx context.Context) ([]Report, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT slug, title, author, org, created_at FROM reports ORDER BY created_at DESC, slug`)
	if err != nil {
		return nil, fmt.Errorf("listing reports: %w", err)
	}
	defer rows.Close()
	var out []Report
	for rows.Next() {
		var r Report
		if err := rows.Scan(&r.Slug, &r.Title, &r.Author, &r.Org, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("listing reports: %w", err)
		}
		r.CreatedAt = r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}
