-- +goose Up
-- SQLite's migration 00011 adds runs_walk, an index its ranking walks check filters
-- in (see migrations/sqlite/00011_runs_walk.sql). PostgreSQL's planner walks the same
-- rankings fast without it (docs/site.md: every cell-board page's p95 ≤ 34.4 ms at
-- 1,000,000 runs), and each index costs every stored run a write, so this version
-- only keeps the two stores' version numbers the same.
SELECT 1;

-- +goose Down
SELECT 1;
