-- +goose Up
-- run_pairs counts runs per pair of values of two of run_groups' dimensions (a GPU
-- and an engine, a model and a quantization …), as runs are stored, so that a page
-- filtered by two values that never occur together is known empty at once instead
-- of after reading every run of the narrower one (store.leadFilter). Open fills it
-- for runs stored before it existed (store.fillPairs).
CREATE TABLE run_pairs (
    dim_a  TEXT NOT NULL,
    name_a TEXT NOT NULL,
    dim_b  TEXT NOT NULL,
    name_b TEXT NOT NULL,
    runs   INTEGER NOT NULL,
    PRIMARY KEY (dim_a, name_a, dim_b, name_b)
);

-- +goose Down
DROP TABLE run_pairs;
