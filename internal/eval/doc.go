// Package eval owns llmbench eval: the evaluation sets (GSM8K's test split, a
// stratified MMLU-Pro subset, a custom JSONL file), their data downloaded at a pinned
// revision, checked against a pinned SHA-256 and cached, the prompts, the --limit
// subset, and the run that asks a server every item (temperature 0, the server's chat
// template, as many at once as asked), keeps every raw answer and scores it with
// internal/accuracy into the run document's accuracy block, resuming after Ctrl-C.
package eval
