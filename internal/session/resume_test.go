package session

import "testing"

// TestResumeHint: the command printed after Ctrl-C carries what the document does not
// record, quoted for the shell.
func TestResumeHint(t *testing.T) {
	c := Config{Out: "my run.json", Events: "ev.ndjson", Launch: "vllm serve m --port 8000", Telemetry: "http://gpu:9109", TelemetryGiven: true}
	got := ResumeHint(c, true)
	want := "llmbench run --resume 'my run.json' --events ev.ndjson --launch 'vllm serve m --port 8000' --telemetry http://gpu:9109 --api-key …  (or set OPENAI_API_KEY)"
	if got != want {
		t.Errorf("hint\n%s\nwant\n%s", got, want)
	}
}
