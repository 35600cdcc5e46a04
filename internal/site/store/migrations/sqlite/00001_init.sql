-- +goose Up
CREATE TABLE orgs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE users (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL UNIQUE,
    org_id     INTEGER REFERENCES orgs(id),
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE tokens (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    hash       TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    doc             TEXT NOT NULL,
    doc_sha256      TEXT NOT NULL,
    kind            TEXT NOT NULL,
    title           TEXT NOT NULL,
    model           TEXT NOT NULL,
    gpu             TEXT NOT NULL,
    gpu_count       INTEGER NOT NULL,
    vram_gb         DOUBLE PRECISION,
    engine          TEXT NOT NULL,
    engine_version  TEXT NOT NULL,
    quantization    TEXT NOT NULL,
    profile         TEXT NOT NULL,
    decode_tok_s    DOUBLE PRECISION,
    peak_tok_s      DOUBLE PRECISION,
    prefill32k_tok_s DOUBLE PRECISION,
    tok_s_per_gb    DOUBLE PRECISION,
    created_at      TIMESTAMP NOT NULL,
    submitted_at    TIMESTAMP NOT NULL,
    submitter       TEXT NOT NULL,
    org             TEXT NOT NULL
);

CREATE INDEX runs_decode ON runs (kind, decode_tok_s DESC);
CREATE INDEX runs_peak ON runs (kind, peak_tok_s DESC);
CREATE INDEX runs_prefill ON runs (kind, prefill32k_tok_s DESC);
CREATE INDEX runs_per_gb ON runs (kind, tok_s_per_gb DESC);
CREATE INDEX runs_model ON runs (model, decode_tok_s DESC);
CREATE INDEX runs_gpu ON runs (gpu, decode_tok_s DESC);
CREATE INDEX runs_engine ON runs (engine);
CREATE INDEX runs_quant ON runs (quantization);
CREATE INDEX runs_profile ON runs (profile);
CREATE INDEX runs_org ON runs (org);
CREATE INDEX runs_submitted ON runs (submitted_at DESC);

CREATE TABLE reports (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    slug       TEXT NOT NULL UNIQUE,
    title      TEXT NOT NULL,
    body_md    TEXT NOT NULL,
    author     TEXT NOT NULL,
    org        TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE reports;
DROP TABLE runs;
DROP TABLE tokens;
DROP TABLE users;
DROP TABLE orgs;
