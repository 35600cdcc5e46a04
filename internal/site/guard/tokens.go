package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// The operator's API tokens ("llmbench serve token …"), each call over the database
// db names: a SQLite file path or a postgres:// URL.

// CreateToken makes an API token for user (created if new, put in org if given) and
// prints it once, on the last line: the store keeps only its hash.
func CreateToken(ctx context.Context, w io.Writer, db, user, org string) error {
	if user == "" {
		return errors.New("--user is required (like --user @alice)")
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	tok, err := st.CreateToken(ctx, user, org)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "API token for %s", user)
	if org != "" {
		fmt.Fprintf(w, " (%s)", org)
	}
	fmt.Fprintln(w, "; it is shown only now:")
	fmt.Fprintln(w, tok)
	return nil
}

// ListTokens prints every token's ID, user and creation time (the tokens themselves
// are not stored).
func ListTokens(ctx context.Context, w io.Writer, db string) error {
	st, err := store.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	tokens, err := st.Tokens(ctx)
	if err != nil {
		return err
	}
	if len(tokens) == 0 {
		fmt.Fprintln(w, "no tokens; create one with: llmbench serve token create --user @name")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSER\tCREATED")
	for _, t := range tokens {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.User, t.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

// RevokeTokens revokes every token of user when user is set, else the one token named
// by itself or its ID. Runs already submitted stay.
func RevokeTokens(ctx context.Context, w io.Writer, db, token, user string) error {
	st, err := store.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	if user != "" {
		n, err := st.RevokeUserTokens(ctx, user)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "revoked %d token(s) of %s\n", n, user)
		return nil
	}
	if err := st.RevokeToken(ctx, token); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errors.New("no such token (llmbench serve token list shows the IDs)")
		}
		return err
	}
	fmt.Fprintln(w, "revoked")
	return nil
}
