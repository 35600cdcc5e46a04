package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/site/metric"
)

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
		created_at, submitted_at, submitter, org, family, params_b, author, mode, decode_ci_low, decode_ci_high)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		rec.ID, rec.Kind, rec.Title, rec.Model, rec.GPU, rec.GPUCount, rec.VRAMGB,
		rec.Engine, rec.EngineVersion, rec.Quantization, rec.Profile, rec.DecodeTokS, rec.PeakTokS, rec.Prefill32KTokS, rec.TokSPerGB,
		rec.CreatedAt.UTC(), rec.SubmittedAt.UTC(), rec.Submitter, rec.Org, rec.Family, rec.ParamsB, rec.Author, modeOr(rec.Mode),
		ciLow(rec.DecodeCI), ciHigh(rec.DecodeCI))
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

// modeOr is a record's mode, matrix when it was built without one.
func modeOr(mode string) string {
	if mode == "" {
		return metric.ModeMatrix
	}
	return mode
}

func (s *Store) runDigest(ctx context.Context, id string) (string, error) {
	var d string
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT doc_sha256 FROM run_docs WHERE id = ?`), id).Scan(&d)
	return d, err
}

const runColumns = `id, kind, title, model, gpu, gpu_count, vram_gb, engine, engine_version, quantization, profile,
	decode_tok_s, peak_tok_s, prefill32k_tok_s, tok_s_per_gb, created_at, submitted_at, submitter, org, family, params_b, author, mode`

// scanRun reads a row of runColumns.
func scanRun(sc scanner) (RunRecord, error) { return scanRunWith(sc) }

// scanRunWith reads a row of runColumns followed by the columns extra points to.
func scanRunWith(sc scanner, extra ...any) (RunRecord, error) {
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
	r, err := scanRunWith(s.db.QueryRowContext(ctx, s.rebind(`SELECT `+prefixed("r.", runColumns)+`, d.doc FROM runs r JOIN run_docs d ON d.id = r.id WHERE r.id = ?`), id), &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return RunRecord{}, nil, ErrNotFound
	}
	if err != nil {
		return RunRecord{}, nil, fmt.Errorf("reading run %s: %w", id, err)
	}
	return r, []byte(doc), nil
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
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT `+runColumns+` FROM runs`+where+order+` LIMIT ? OFFSET ?`),
		append(args, q.Limit, q.Offset), scanRun)
	if err != nil {
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
