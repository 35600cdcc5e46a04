package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// TokenPrefix starts every API token, so that a leaked one is recognisable.
const TokenPrefix = "llmb_"

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
	out, err := queryRows(ctx, s.db, `SELECT t.hash, u.name, t.created_at FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.created_at, t.id`, nil,
		func(sc scanner) (TokenInfo, error) {
			var ti TokenInfo
			var hash string
			err := sc.Scan(&hash, &ti.User, &ti.CreatedAt)
			ti.ID, ti.CreatedAt = hash[:min(tokenIDLen, len(hash))], ti.CreatedAt.UTC()
			return ti, err
		})
	if err != nil {
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
