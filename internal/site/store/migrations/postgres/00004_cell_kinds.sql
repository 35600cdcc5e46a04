-- +goose Up
-- The leaderboard's cell picker counts the runs the board would rank (issue 24 item
-- 8): measured runs only unless the reader includes emulated and predicted ones, and
-- only those a filter keeps. So metric_cells counts each cell's runs per kind — in
-- all (dim and name empty), and per value of each dimension run_groups counts runs by
-- (store.groupDims) — and the picker sums the kinds it shows, for no filter or one.
DROP TABLE metric_cells;
CREATE TABLE metric_cells (
    metric  TEXT NOT NULL,
    cond    TEXT NOT NULL,
    context INTEGER NOT NULL,
    level   DOUBLE PRECISION NOT NULL,
    kind    TEXT NOT NULL,
    dim     TEXT NOT NULL,
    name    TEXT NOT NULL,
    runs    INTEGER NOT NULL,
    PRIMARY KEY (metric, dim, name, cond, context, level, kind)
);
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, '', '', COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'model', r.model, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.model;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'gpu', r.gpu, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.gpu;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'engine', r.engine, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.engine;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'quantization', r.quantization, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.quantization;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'profile', r.profile, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.profile;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'family', r.family, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.family;
INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs)
    SELECT m.metric, m.cond, m.context, m.level, r.kind, 'mode', r.mode, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id
    GROUP BY m.metric, m.cond, m.context, m.level, r.kind, r.mode;

-- +goose Down
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
