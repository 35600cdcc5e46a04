// Package e2e holds llmbench's end-to-end tests: the llmbench binary, built as a user
// builds it, driven against a real inference engine (llama.cpp through Ollama) that
// serves a tiny random-weight model written by internal/gguf. The package has no code
// of its own; its tests run only where the engine is installed (LLMBENCH_OLLAMA, set
// up in CI by .ci/setup-40-ollama.sh).
package e2e
