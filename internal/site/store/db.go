package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

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

// querier is a *sql.DB or a *sql.Tx, for queryRows.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// scanner is a row to read: *sql.Rows or *sql.Row.
type scanner interface{ Scan(dest ...any) error }

// queryRows runs query (in the database's own placeholders: rebind it first) on q and
// reads every row with scan, in order; no rows is a nil slice. It is the only loop over
// rows in the store, so that none forgets to close them or to check their error.
func queryRows[T any](ctx context.Context, q querier, query string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// prefixed qualifies each column of a comma-separated list with a table alias.
func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// scanOne reads a row of one column, for queryRows.
func scanOne[T any](sc scanner) (T, error) {
	var v T
	err := sc.Scan(&v)
	return v, err
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
