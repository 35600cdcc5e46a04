-- +goose Up
-- run_count_queue holds the runs stored whose counts (run_groups, metric_cells,
-- run_pairs) are not yet added. A run is stored in one transaction with its row here;
-- its counts are added in a later one, with those of the other runs stored at the same
-- time, which deletes the row: counting in the storing transaction made every
-- submitter wait for the others' locks on the rows all runs add to (store/counting.go).
-- Open adds the counts of any run left here (a crash between the two).
CREATE TABLE run_count_queue (
    run_id TEXT PRIMARY KEY
);

-- +goose Down
DROP TABLE run_count_queue;
