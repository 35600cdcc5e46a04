package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// TakeToken takes one request from key's token bucket (perSec refill, burst size),
// kept in the database so that every instance on it shares the limit. With consume
// false it only says whether a request is left. When the bucket is empty it returns
// how long until one is. now is the caller's clock: instances are expected to keep
// their clocks in step (NTP), as the bucket's refill is reckoned from it.
//
// The bucket is updated by one statement (an upsert whose update applies only when a
// request is left), so two instances taking from one bucket at once cannot both take
// its last request.
func (s *Store) TakeToken(ctx context.Context, key string, perSec float64, burst int, now time.Time, consume bool) (ok bool, wait time.Duration, err error) {
	t := float64(now.UnixNano()) / 1e9
	b := float64(burst)
	if rand.IntN(1000) == 0 {
		// Forget buckets idle long enough to have refilled, now and then.
		idle := b / perSec
		s.exec(ctx, s.db, `DELETE FROM rate_buckets WHERE updated_at < ?`, t-max(idle, 60))
	}
	if consume {
		// level is the bucket's content now, before this request: what was left plus
		// the refill since (none when another instance's clock ran ahead), at most burst.
		const now, rate, full = "CAST(? AS DOUBLE PRECISION)", "CAST(? AS DOUBLE PRECISION)", "CAST(? AS DOUBLE PRECISION)"
		const elapsed = "(CASE WHEN " + now + " > rate_buckets.updated_at THEN " + now + " - rate_buckets.updated_at ELSE 0 END)"
		const level = "(CASE WHEN rate_buckets.tokens + " + elapsed + " * " + rate + " > " + full + " THEN " + full +
			" ELSE rate_buckets.tokens + " + elapsed + " * " + rate + " END)"
		levelArgs := []any{t, t, perSec, b, b, t, t, perSec}
		args := []any{key, b - 1, t}
		args = append(args, levelArgs...)
		args = append(args, t, t) // updated_at: the later of the stored time and now
		args = append(args, levelArgs...)
		err = s.takeFromBucket(ctx, `INSERT INTO rate_buckets (key, tokens, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET tokens = `+level+` - 1,
				updated_at = CASE WHEN `+now+` > rate_buckets.updated_at THEN `+now+` ELSE rate_buckets.updated_at END
			WHERE `+level+` >= 1 RETURNING tokens`, args...)
		if err == nil {
			return true, 0, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return true, 0, fmt.Errorf("taking from rate limit: %w", s.classify(err))
		}
	}
	var tokens, updated float64
	err = s.db.QueryRowContext(ctx, s.rebind(`SELECT tokens, updated_at FROM rate_buckets WHERE key = ?`), key).Scan(&tokens, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return true, 0, nil // a full bucket
	}
	if err != nil {
		return true, 0, fmt.Errorf("reading rate limit: %w", err)
	}
	level := math.Min(b, tokens+math.Max(0, t-updated)*perSec)
	if level >= 1 {
		return true, 0, nil
	}
	return false, time.Duration((1 - level) / perSec * float64(time.Second)), nil
}

// takeFromBucket runs the bucket's upsert (sql.ErrNoRows when the bucket is empty). On
// PostgreSQL it does not wait for its commit to reach the disk: a crash may forget the
// last moment's requests from a bucket, which is harmless, and every API request takes
// from one, so waiting for the disk each time slowed every submission.
func (s *Store) takeFromBucket(ctx context.Context, query string, args ...any) error {
	var left float64
	if s.dialect != Postgres {
		return s.db.QueryRowContext(ctx, s.rebind(query), args...).Scan(&left)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, s.rebind(query), args...).Scan(&left); err != nil {
		return err
	}
	return tx.Commit()
}
