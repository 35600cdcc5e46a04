package report

import (
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// A document's over-capacity reasons and its --repeat note are English sentences that
// llmbench wrote from a few numbers (rundoc's texts.go). A report or a page in another
// language writes them again from those numbers; a reason or note in any other form
// (another tool's, a hand-written one) is shown as the document has it.

// reasonLabels are the texts of the reasons and notes written again, merged into labels.
var reasonLabels = map[string][2]string{
	"reason_over_length": {"context + max output = %s tokens exceeds max_model_len %s", "コンテキスト + 最大出力 = %s トークンが max_model_len（%s）を超えています"},
	"reason_over_kv":     {"%s requests × %s tokens = %s exceeds the KV cache (%s tokens)", "%s リクエスト × %s トークン = %s が KV キャッシュ（%s トークン）を超えています"},
	"reason_over_kv_one": {"one request of %s tokens exceeds the KV cache (%s tokens)", "1 リクエスト（%s トークン）が KV キャッシュ（%s トークン）を超えています"},
	// A server with slots (llama-server -np), and a prompt longer than its context
	// (the chat template at context 0): rundoc.Limits.
	"reason_over_slot": {"context + max output = %s tokens exceeds one slot's context of %s tokens (the server runs %s of %s)",
		"コンテキスト + 最大出力 = %s トークンが 1 スロットのコンテキスト（%s トークン）を超えています（サーバーのスロット：%s、各 %s トークン）"},
	"reason_over_slot_prompt": {"the prompt (%s tokens with the chat template) + max output = %s tokens exceeds one slot's context of %s tokens (the server runs %s of %s)",
		"プロンプト（チャットテンプレート込み %s トークン）+ 最大出力 = %s トークンが 1 スロットのコンテキスト（%s トークン）を超えています（サーバーのスロット：%s、各 %s トークン）"},
	"reason_over_length_prompt": {"the prompt (%s tokens with the chat template) + max output = %s tokens exceeds max_model_len %s",
		"プロンプト（チャットテンプレート込み %s トークン）+ 最大出力 = %s トークンが max_model_len（%s）を超えています"},
	"reason_over_kv_slots": {"%s requests at once (one per slot) × %s tokens = %s exceeds the KV cache (%s tokens)",
		"同時に %s リクエスト（スロットごとに 1 つ）× %s トークン = %s が KV キャッシュ（%s トークン）を超えています"},
	"slots_n":   {"%s slots", "%s"},
	"slots_one": {"1 slot", "1"},
	"note_repeat": {"Every cell and prefill row was measured %s times, the plan run whole once per repeat: each shows its median repeat, with the 95%% interval over the repeats.",
		"すべてのセルとプリフィル行を %s 回測定しました（繰り返しごとに計画全体を 1 回実行）。各値は繰り返しの中央値で、繰り返し全体の 95%% 信頼区間を付けています。"},
	"note_repeat_unstable": {" Unstable (repeats disagree beyond their intervals): %s.", "不安定なセル（繰り返しの差が区間を超える）：%s。"},
	// The bar chart's note on ties (barchart.go).
	"bar_tie_note": {"≈ tie: cannot be told from the bar above", "≈ 同等：上の棒と区別できません"},
}

func init() {
	for k, v := range reasonLabels {
		labels[k] = v
	}
}

// CapacityReason is an over-capacity reason in lang.
func CapacityReason(reason, lang string) string {
	f, ok := rundoc.ParseFitReason(reason)
	n := func(v int64) string { return FormatInt(lang, int(v)) }
	switch {
	case !ok:
		return reason
	case f.ByLength && f.SlotTokens > 0:
		slots := T(lang, "slots_n", n(f.Slots))
		if f.Slots == 1 {
			slots = T(lang, "slots_one")
		}
		if f.Prompt > 0 {
			return T(lang, "reason_over_slot_prompt", n(f.Prompt), n(f.PerRequest), n(f.SlotTokens), slots, n(f.SlotTokens))
		}
		return T(lang, "reason_over_slot", n(f.PerRequest), n(f.SlotTokens), slots, n(f.SlotTokens))
	case f.ByLength && f.Prompt > 0:
		return T(lang, "reason_over_length_prompt", n(f.Prompt), n(f.PerRequest), n(f.MaxModelLen))
	case f.ByLength:
		return T(lang, "reason_over_length", FormatInt(lang, int(f.PerRequest)), FormatInt(lang, int(f.MaxModelLen)))
	case f.PerSlot:
		return T(lang, "reason_over_kv_slots", n(f.Concurrency), n(f.PerRequest), n(f.Need), n(f.KVCache))
	case f.Concurrency == 1:
		return T(lang, "reason_over_kv_one", FormatInt(lang, int(f.PerRequest)), FormatInt(lang, int(f.KVCache)))
	}
	return T(lang, "reason_over_kv", FormatInt(lang, int(f.Concurrency)), FormatInt(lang, int(f.PerRequest)), FormatInt(lang, int(f.Need)), FormatInt(lang, int(f.KVCache)))
}

// NoteText is a run note in lang.
func NoteText(note, lang string) string {
	n, ok := rundoc.ParseRepeatNote(note)
	if !ok {
		return note
	}
	s := T(lang, "note_repeat", strconv.Itoa(n.Repeats))
	if len(n.Unstable) > 0 {
		sep := ", "
		if normLang(lang) == "ja" {
			sep = "、"
		}
		s += T(lang, "note_repeat_unstable", strings.Join(n.Unstable, sep))
	}
	return s
}
