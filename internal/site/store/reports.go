package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

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
	out, err := queryRows(ctx, s.db, `SELECT `+reportListColumns+` FROM reports ORDER BY created_at DESC, slug`, nil, scanReportListing)
	if err != nil {
		return nil, fmt.Errorf("listing reports: %w", err)
	}
	return out, nil
}

// reportListColumns are a report's columns but its body, as scanReportListing reads them.
const reportListColumns = "slug, title, author, org, created_at"

func scanReportListing(sc scanner) (Report, error) {
	var r Report
	err := sc.Scan(&r.Slug, &r.Title, &r.Author, &r.Org, &r.CreatedAt)
	r.CreatedAt = r.CreatedAt.UTC()
	return r, err
}

// ReportsBy lists the reports a user published, newest first (without their bodies).
func (s *Store) ReportsBy(ctx context.Context, author string) ([]Report, error) {
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT `+reportListColumns+` FROM reports WHERE author = ? ORDER BY created_at DESC, slug`),
		[]any{author}, scanReportListing)
	if err != nil {
		return nil, fmt.Errorf("listing %s's reports: %w", author, err)
	}
	return out, nil
}
