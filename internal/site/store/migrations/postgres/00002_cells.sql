-- +goose Up
-- Families, sizes and the document's own author, to filter and list runs by.
ALTER TABLE runs ADD COLUMN family TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN params_b DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN author TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_family ON runs (family);
CREATE INDEX runs_author ON runs (author);

-- run_metrics holds every value of every registered metric (store.CellMetrics) of each
-- run: the leaderboard ranks any cell by walking run_metrics_rank, whose rank_key
-- puts the best value first whichever way the metric is better.
CREATE TABLE run_metrics (
    run_id   TEXT NOT NULL REFERENCES runs(id),
    metric   TEXT NOT NULL,
    context  INTEGER NOT NULL,
    level    DOUBLE PRECISION NOT NULL,
    value    DOUBLE PRECISION NOT NULL,
    rank_key DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, metric, context, level)
);
CREATE INDEX run_metrics_rank ON run_metrics (metric, context, level, rank_key, run_id);

-- metric_cells counts the runs that have each metric's cell, kept with the runs, so
-- that the leaderboard's cell picker never scans run_metrics.
CREATE TABLE metric_cells (
    metric  TEXT NOT NULL,
    context INTEGER NOT NULL,
    level   DOUBLE PRECISION NOT NULL,
    runs    INTEGER NOT NULL,
    PRIMARY KEY (metric, context, level)
);

-- site_meta keeps what the store itself needs to remember (the metric registry's
-- signature the stored runs were indexed under).
CREATE TABLE site_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- rate_buckets is the token bucket of each rate-limited key (an API token's hash, a
-- client address), shared by every instance that uses this database.
CREATE TABLE rate_buckets (
    key        TEXT PRIMARY KEY,
    tokens     DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);

-- +goose Down
DROP TABLE rate_buckets;
DROP TABLE site_meta;
DROP TABLE metric_cells;
DROP TABLE run_metrics;
DROP INDEX runs_author;
DROP INDEX runs_family;
ALTER TABLE runs DROP COLUMN author;
ALTER TABLE runs DROP COLUMN params_b;
ALTER TABLE runs DROP COLUMN family;
