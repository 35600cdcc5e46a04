package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// User is someone who may submit runs.
type User struct {
	ID   int64
	Name string // "@name"
	Org  string // "" when none
}

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

// Submitter is a user with their organisation and how many runs they submitted.
type Submitter struct {
	Name string `json:"name"`
	Org  string `json:"org,omitempty"`
	Runs int    `json:"runs"`
}

// Submitters lists every user, with their organisation and run count.
func (s *Store) Submitters(ctx context.Context) ([]Submitter, error) {
	out, err := queryRows(ctx, s.db, `SELECT u.name, COALESCE(o.name, '') FROM users u LEFT JOIN orgs o ON o.id = u.org_id ORDER BY u.name`, nil,
		func(sc scanner) (Submitter, error) {
			var u Submitter
			err := sc.Scan(&u.Name, &u.Org)
			return u, err
		})
	if err != nil {
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
