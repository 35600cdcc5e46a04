-- +goose Up
-- The history of a GPU × model (issue 39 item 2) charts each run's single-stream
-- decode figure (decode_tok_s) with its 95% interval, the document's total_tok_s_ci
-- of that cell; NULL when the run gives none (one measurement, no repeats). Reindex
-- fills them for the runs stored before (metric's summaryRev 6). The history reads
-- one GPU × model's runs by runs_gpu_model, never the whole table.
ALTER TABLE runs ADD COLUMN decode_ci_low DOUBLE PRECISION;
ALTER TABLE runs ADD COLUMN decode_ci_high DOUBLE PRECISION;
CREATE INDEX runs_gpu_model ON runs (gpu, model);

-- +goose Down
DROP INDEX runs_gpu_model;
ALTER TABLE runs DROP COLUMN decode_ci_high;
ALTER TABLE runs DROP COLUMN decode_ci_low;
