-- +goose Up
-- Open-loop runs (issue 16). A run's mode (matrix, or rate: llmbench run --rate), to
-- list and filter runs by; run_groups counts it (dim 'mode') as it counts the others.
ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'matrix';
CREATE INDEX runs_mode ON runs (mode);

-- The conditions a metric value was measured under: '' for a matrix cell, a rate
-- cell's workload and SLO otherwise (store.RateCond's key). A value ranks only
-- against values of the same metric, cell and conditions.
ALTER TABLE run_metrics ADD COLUMN cond TEXT NOT NULL DEFAULT '';
DROP INDEX run_metrics_rank;
CREATE INDEX run_metrics_rank ON run_metrics (metric, cond, context, level, rank_key, run_id);

DROP TABLE metric_cells;
CREATE TABLE metric_cells (
    metric  TEXT NOT NULL,
    cond    TEXT NOT NULL,
    context INTEGER NOT NULL,
    level   DOUBLE PRECISION NOT NULL,
    runs    INTEGER NOT NULL,
    PRIMARY KEY (metric, cond, context, level)
);
INSERT INTO metric_cells (metric, cond, context, level, runs)
    SELECT metric, cond, context, level, COUNT(*) FROM run_metrics GROUP BY metric, cond, context, level;

-- +goose Down
DROP TABLE metric_cells;
CREATE TABLE metric_cells (
    metric  TEXT NOT NULL,
    context INTEGER NOT NULL,
    level   DOUBLE PRECISION NOT NULL,
    runs    INTEGER NOT NULL,
    PRIMARY KEY (metric, context, level)
);
INSERT INTO metric_cells (metric, context, level, runs)
    SELECT metric, context, level, COUNT(*) FROM run_metrics WHERE cond = '' GROUP BY metric, context, level;
DROP INDEX run_metrics_rank;
DELETE FROM run_metrics WHERE cond <> '';
ALTER TABLE run_metrics DROP COLUMN cond;
CREATE INDEX run_metrics_rank ON run_metrics (metric, context, level, rank_key, run_id);
DELETE FROM run_groups WHERE dim = 'mode';
DROP INDEX runs_mode;
ALTER TABLE runs DROP COLUMN mode;
-- The code before this migration re-reads every document on its next start.
DELETE FROM site_meta WHERE key = 'registry';
