-- +goose Up
-- A ranking walk (a cell's stretch of run_metrics_rank, in order) looks each run up
-- to check the page's filters. The walk names this index (INDEXED BY, cellJoin), so
-- the kind, family, GPU and model filters are checked in the index alone and only
-- the runs that pass are read from the table: a family page at 1,000,000 runs looks
-- up about 2,000 runs to show its 50 (issue 39 item 4, docs/site.md).
CREATE INDEX runs_walk ON runs (id, kind, family, gpu, model);

-- +goose Down
DROP INDEX runs_walk;
