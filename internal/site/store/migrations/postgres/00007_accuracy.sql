-- +goose Up
-- run_accuracy holds each run's finished accuracy per evaluation set (llmbench eval,
-- issue 38), by the set's key (accuracy.SetKey) and the run's model family, so that
-- the leaderboard can hide runs far below the best of their family on a set
-- (store.AccuracyFilter) without reading documents. Open fills it for runs stored
-- before it existed (Reindex: summaryRev 5).
CREATE TABLE run_accuracy (
    run_id  TEXT NOT NULL REFERENCES runs(id),
    set_key TEXT NOT NULL,
    family  TEXT NOT NULL,
    score   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, set_key)
);
CREATE INDEX run_accuracy_best ON run_accuracy (family, set_key, score);

-- +goose Down
DROP TABLE run_accuracy;
