package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Org is an organisation with its members and how many runs they submitted.
type Org struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
	Runs    int      `json:"runs"`
}

// Orgs lists organisations, each with its members and run count.
func (s *Store) Orgs(ctx context.Context) ([]Org, error) {
	type member struct {
		org  string
		name sql.NullString
	}
	members, err := queryRows(ctx, s.db, `SELECT o.name, u.name FROM orgs o LEFT JOIN users u ON u.org_id = o.id ORDER BY o.name, u.name`, nil,
		func(sc scanner) (member, error) {
			var m member
			err := sc.Scan(&m.org, &m.name)
			return m, err
		})
	if err != nil {
		return nil, fmt.Errorf("listing organisations: %w", err)
	}
	var out []Org
	for _, m := range members {
		if len(out) == 0 || out[len(out)-1].Name != m.org {
			out = append(out, Org{Name: m.org})
		}
		if m.name.Valid {
			out[len(out)-1].Members = append(out[len(out)-1].Members, m.name.String)
		}
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
