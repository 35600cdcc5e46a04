-- +goose Up
CREATE TABLE orgs (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    org_id     BIGINT REFERENCES orgs(id),
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE tokens (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users(id),
    hash       TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
);

-- runs holds the summary of each run that pages rank and filter by; its rows stay
-- narrow (the document itself is in run_docs) so that scanning thousands of them to
-- rank a page stays cheap.
CREATE TABLE runs (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    title            TEXT NOT NULL,
    model            TEXT NOT NULL,
    gpu              TEXT NOT NULL,
    gpu_count        INTEGER NOT NULL,
    vram_gb          DOUBLE PRECISION,
    engine           TEXT NOT NULL,
    engine_version   TEXT NOT NULL,
    quantization     TEXT NOT NULL,
    profile          TEXT NOT NULL,
    decode_tok_s     DOUBLE PRECISION,
    peak_tok_s       DOUBLE PRECISION,
    prefill32k_tok_s DOUBLE PRECISION,
    tok_s_per_gb     DOUBLE PRECISION,
    created_at       TIMESTAMPTZ NOT NULL,
    submitted_at     TIMESTAMPTZ NOT NULL,
    submitter        TEXT NOT NULL,
    org              TEXT NOT NULL
);

-- Pages walk a ranking index in order (ties broken by id, as ORDER BY says) when
-- the filters are broad, and start from a filter's index when one is narrow; the
-- store picks which from run_groups' counts.
CREATE INDEX runs_decode ON runs (decode_tok_s DESC, id);
CREATE INDEX runs_peak ON runs (peak_tok_s DESC, id);
CREATE INDEX runs_prefill ON runs (prefill32k_tok_s DESC, id);
CREATE INDEX runs_per_gb ON runs (tok_s_per_gb DESC, id);
CREATE INDEX runs_submitted ON runs (submitted_at DESC, id);
CREATE INDEX runs_model ON runs (model);
CREATE INDEX runs_gpu ON runs (gpu);
CREATE INDEX runs_engine ON runs (engine);
CREATE INDEX runs_quant ON runs (quantization);
CREATE INDEX runs_profile ON runs (profile);
CREATE INDEX runs_org ON runs (org);
CREATE INDEX runs_submitter ON runs (submitter);
CREATE INDEX runs_kind ON runs (kind);

-- run_docs holds each run document exactly as submitted.
CREATE TABLE run_docs (
    id         TEXT PRIMARY KEY REFERENCES runs(id),
    doc_sha256 TEXT NOT NULL,
    doc        TEXT NOT NULL
);

-- run_groups keeps, per model, GPU, engine, quantization and profile, the number of
-- runs and the best measured figures, updated in the transaction that stores a run,
-- so that filter choices and the hardware and model lists never scan runs.
CREATE TABLE run_groups (
    dim         TEXT NOT NULL,
    name        TEXT NOT NULL,
    runs        INTEGER NOT NULL,
    best_decode DOUBLE PRECISION,
    best_peak   DOUBLE PRECISION,
    vram_gb     DOUBLE PRECISION,
    PRIMARY KEY (dim, name)
);

CREATE TABLE reports (
    id         BIGSERIAL PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    title      TEXT NOT NULL,
    body_md    TEXT NOT NULL,
    author     TEXT NOT NULL,
    org        TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE reports;
DROP TABLE run_groups;
DROP TABLE run_docs;
DROP TABLE runs;
DROP TABLE tokens;
DROP TABLE users;
DROP TABLE orgs;
