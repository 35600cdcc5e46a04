-- +goose Up
-- cell_best keeps, for each cell of a metric and each kind, model, GPU and family,
-- how many runs have the cell and the best of them (the lowest rank_key, ties by run
-- id, as the rankings order): the charts of the best run per GPU or per model
-- (store.BestByGroup) read a few of its rows instead of every run of a model, family
-- or GPU with the cell (16,700 runs of a family at 1,000,000 runs; issue 39 item 4).
-- Runs are counted into it as into metric_cells (counting.go); Reindex rebuilds it,
-- and Open fills it for runs stored before it existed (store.fillBest).
CREATE TABLE cell_best (
    metric   TEXT NOT NULL,
    cond     TEXT NOT NULL,
    context  INTEGER NOT NULL,
    level    DOUBLE PRECISION NOT NULL,
    kind     TEXT NOT NULL,
    model    TEXT NOT NULL,
    gpu      TEXT NOT NULL,
    family   TEXT NOT NULL,
    runs     INTEGER NOT NULL,
    rank_key DOUBLE PRECISION NOT NULL,
    value    DOUBLE PRECISION NOT NULL,
    run_id   TEXT NOT NULL,
    PRIMARY KEY (metric, cond, context, level, model, gpu, family, kind)
);
CREATE INDEX cell_best_gpu ON cell_best (metric, cond, context, level, gpu);
CREATE INDEX cell_best_family ON cell_best (metric, cond, context, level, family);

-- +goose Down
DROP TABLE cell_best;
