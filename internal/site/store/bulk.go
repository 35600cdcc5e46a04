package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Writing many rows in one statement. PostgreSQL pays a round trip per statement, and
// plans each new text of one: a VALUES list of a thousand rows is a new text for every
// length, with a parameter per value. So on PostgreSQL the rows go as one array per
// column, unnested, in a statement whose text never changes; SQLite, in the process,
// takes VALUES lists.

// bulkTable is a table and the columns a bulk insert writes.
type bulkTable struct {
	name string
	cols []bulkColumn
}

type bulkColumn struct {
	name string
	typ  colType
}

// colType is a column's type, for its array on PostgreSQL.
type colType int

const (
	colText  colType = iota // string
	colInt                  // int
	colFloat                // float64 or *float64 (NULL when nil)
)

// bulkInsert inserts n rows into t (row(i) gives row i's values, in t's column order)
// and ends the statement with tail (an ON CONFLICT clause, or "").
func (s *Store) bulkInsert(ctx context.Context, tx *sql.Tx, t bulkTable, n int, row func(i int) []any, tail string) error {
	if n == 0 {
		return nil
	}
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	head := `INSERT INTO ` + t.name + ` (` + strings.Join(names, ", ") + `) `
	if s.dialect == Postgres {
		return s.bulkArrays(ctx, tx, t, head, n, row, tail)
	}
	const perStatement = 1000 // well within SQLite's 32,766 parameters
	mark := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ") + ")"
	for start := 0; start < n; start += perStatement {
		end := min(start+perStatement, n)
		vals := make([]string, 0, end-start)
		args := make([]any, 0, len(t.cols)*(end-start))
		for i := start; i < end; i++ {
			vals = append(vals, mark)
			args = append(args, row(i)...)
		}
		if _, err := tx.ExecContext(ctx, head+`VALUES `+strings.Join(vals, ", ")+` `+tail, args...); err != nil {
			return s.classify(err)
		}
	}
	return nil
}

// bulkArrays is bulkInsert on PostgreSQL: INSERT … SELECT * FROM unnest($1::text[], …).
func (s *Store) bulkArrays(ctx context.Context, tx *sql.Tx, t bulkTable, head string, n int, row func(i int) []any, tail string) error {
	arrays := make([]any, len(t.cols))
	casts := make([]string, len(t.cols))
	texts := make([][]string, len(t.cols))
	ints := make([][]int64, len(t.cols))
	floats := make([][]*float64, len(t.cols))
	for i := range n {
		for j, v := range row(i) {
			switch t.cols[j].typ {
			case colText:
				texts[j] = append(texts[j], v.(string))
			case colInt:
				ints[j] = append(ints[j], int64(v.(int)))
			case colFloat:
				floats[j] = append(floats[j], floatOrNil(v))
			}
		}
	}
	for j, c := range t.cols {
		switch c.typ {
		case colText:
			arrays[j], casts[j] = texts[j], fmt.Sprintf("$%d::text[]", j+1)
		case colInt:
			arrays[j], casts[j] = ints[j], fmt.Sprintf("$%d::bigint[]", j+1)
		case colFloat:
			arrays[j], casts[j] = floats[j], fmt.Sprintf("$%d::double precision[]", j+1)
		}
	}
	if _, err := tx.ExecContext(ctx, head+`SELECT * FROM unnest(`+strings.Join(casts, ", ")+`) `+tail, arrays...); err != nil {
		return s.classify(err)
	}
	return nil
}

// floatOrNil is a float column's value: a float64, or a *float64 that may be nil.
func floatOrNil(v any) *float64 {
	switch f := v.(type) {
	case float64:
		return &f
	case *float64:
		return f
	}
	return nil
}
