package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The people pages' queries: the authors run documents name, a site user by name,
// and the reports a user published.

// Authors lists the names documents give as their author, with their run counts.
func (s *Store) Authors(ctx context.Context) ([]Facet, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT author, COUNT(*) FROM runs WHERE author <> '' GROUP BY author ORDER BY author LIMIT 500`)
	if err != nil {
		return nil, fmt.Errorf("listing authors: %w", err)
	}
	defer rows.Close()
	var out []Facet
	for rows.Next() {
		var f Facet
		if err := rows.Scan(&f.Value, &f.Runs); err != nil {
			return nil, fmt.Errorf("listing authors: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// UserByName finds a site user (a submitter) by name; ErrNotFound when there is none.
func (s *Store) UserByName(ctx context.Context, name string) (User, error) {
	var u User
	var org sql.NullString
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT u.id, u.name, o.name FROM users u LEFT JOIN orgs o ON o.id = u.org_id WHERE u.name = ?`), name).
		Scan(&u.ID, &u.Name, &org)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("reading user %s: %w", name, err)
	}
	u.Org = org.String
	return u, nil
}

// ReportsBy lists the reports a user published, newest first (without their bodies).
func (s *Store) ReportsBy(ctx context.Context, author string) ([]Report, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT slug, title, author, org, created_at FROM reports WHERE author = ? ORDER BY created_at DESC, slug`), author)
	if err != nil {
		return nil, fmt.Errorf("listing %s's reports: %w", author, err)
	}
	defer rows.Close()
	var out []Report
	for rows.Next() {
		var r Report
		if err := rows.Scan(&r.Slug, &r.Title, &r.Author, &r.Org, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("listing %s's reports: %w", author, err)
		}
		r.CreatedAt = r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}
