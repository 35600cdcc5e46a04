-- +goose Up
-- run_sizes counts runs per model size (params_b, the size a model's name states; 0
-- when it states none), in all (dim and name empty) and per value of each of
-- run_groups' dimensions (store.groupDims), as runs are stored (issue 39 item 4). A
-- size filter is a range of sizes: summing a value's rows in the range says how many
-- of its runs the filter can keep, so that "?size=20-40&gpu=H200" is known empty at
-- once instead of after reading every run of the GPU (store.leadFilter). Open fills
-- it for runs stored before it existed (store.fillSizes).
CREATE TABLE run_sizes (
    dim      TEXT NOT NULL,
    name     TEXT NOT NULL,
    params_b DOUBLE PRECISION NOT NULL,
    runs     INTEGER NOT NULL,
    PRIMARY KEY (dim, name, params_b)
);

-- +goose Down
DROP TABLE run_sizes;
