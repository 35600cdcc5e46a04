package report

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestCapacityReasonInBothLanguages: every over-capacity reason llmbench writes (from
// rundoc.Fit, as the plan and the calculator write them) reads in Japanese without a
// word of its English, and in English with its numbers grouped and "one request" for
// one; a reason in another form is shown as the document has it.
func TestCapacityReasonInBothLanguages(t *testing.T) {
	kv, maxLen := int64(81355), int64(40960)
	_, byLength := rundoc.Fit(40960, 1, 8192, &kv, &maxLen)
	_, byKV := rundoc.Fit(16384, 8, 8192, &kv, &maxLen)
	_, one := rundoc.Fit(131072, 1, 1, &kv, nil)
	// A server with slots (issue 34): the slot, the chat template's tokens, one request
	// per slot against a cache given with --kv-capacity.
	p := func(v int64) *int64 { return &v }
	slots := rundoc.Limits{MaxModelLen: p(2048), Slots: p(4), SlotTokens: p(2048)}
	bySlot, _ := slots.Check(2048, 2048, 4, 256)
	byTemplate, _ := slots.Check(0, 89, 4, 2048)
	perSlot, _ := rundoc.Limits{KVCacheTokens: p(8192), Slots: p(4), SlotTokens: p(8192)}.Check(4096, 4096, 8, 1024)
	for _, tc := range []struct {
		reason, en, ja string
	}{
		{byLength, "context + max output = 49,152 tokens exceeds max_model_len 40,960", "コンテキスト + 最大出力 = 49,152 トークンが max_model_len（40,960）を超えています"},
		{byKV, "8 requests × 24,576 tokens = 196,608 exceeds the KV cache (81,355 tokens)", "8 リクエスト × 24,576 トークン = 196,608 が KV キャッシュ（81,355 トークン）を超えています"},
		{one, "one request of 131,073 tokens exceeds the KV cache (81,355 tokens)", "1 リクエスト（131,073 トークン）が KV キャッシュ（81,355 トークン）を超えています"},
		{bySlot, "context + max output = 2,304 tokens exceeds one slot's context of 2,048 tokens (the server runs 4 slots of 2,048)", "コンテキスト + 最大出力 = 2,304 トークンが 1 スロットのコンテキスト（2,048 トークン）を超えています（サーバーのスロット：4、各 2,048 トークン）"},
		{byTemplate, "the prompt (89 tokens with the chat template) + max output = 2,137 tokens exceeds one slot's context of 2,048 tokens (the server runs 4 slots of 2,048)", "プロンプト（チャットテンプレート込み 89 トークン）+ 最大出力 = 2,137 トークンが 1 スロットのコンテキスト（2,048 トークン）を超えています（サーバーのスロット：4、各 2,048 トークン）"},
		{perSlot, "4 requests at once (one per slot) × 5,120 tokens = 20,480 exceeds the KV cache (8,192 tokens)", "同時に 4 リクエスト（スロットごとに 1 つ）× 5,120 トークン = 20,480 が KV キャッシュ（8,192 トークン）を超えています"},
	} {
		if got := CapacityReason(tc.reason, "en"); got != tc.en {
			t.Errorf("%q in English: %q, want %q", tc.reason, got, tc.en)
		}
		if got := CapacityReason(tc.reason, "ja"); got != tc.ja {
			t.Errorf("%q in Japanese: %q, want %q", tc.reason, got, tc.ja)
		}
	}
	for _, other := range []string{"", "the server said no", "8 requests × many tokens exceeds the KV cache"} {
		if got := CapacityReason(other, "ja"); got != other {
			t.Errorf("an unknown reason %q became %q", other, got)
		}
	}
}

// TestRepeatNoteInJapanese: a --repeat run's note (as the run writes it) reads in
// Japanese with its count and unstable cells; any other note is shown as written.
func TestRepeatNoteInJapanese(t *testing.T) {
	note := rundoc.RepeatNote{Repeats: 3, Unstable: []string{"0 × 1", "16K × 8"}}.String()
	ja := NoteText(note, "ja")
	if !strings.Contains(ja, "3 回測定") || !strings.Contains(ja, "0 × 1、16K × 8") || strings.Contains(ja, "measured") {
		t.Errorf("the --repeat note in Japanese: %q", ja)
	}
	if en := NoteText(note, "en"); en != note {
		t.Errorf("the --repeat note in English: %q, want the note as written %q", en, note)
	}
	if other := "Hardware detection failed: no GPU"; NoteText(other, "ja") != other {
		t.Errorf("another note was changed")
	}
}

// TestPriceNotesInJapanese: a price's notes, each a sentence llmbench writes
// (locale.SentenceIn), are said in Japanese with their joins kept.
func TestPriceNotesInJapanese(t *testing.T) {
	note := "2 GPUs × $5.58 per GPU-hour; the page is undated: 2026-12-01 is when it was read"
	if got := priceNoteIn("ja", note); got != "GPU 2 基 × GPU 1 時間あたり $5.58; ページに日付がありません：2026-12-01 は読み取った日です" {
		t.Errorf("a price's notes in Japanese: %q", got)
	}
}
