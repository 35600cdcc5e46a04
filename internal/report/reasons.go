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

// sentenceLabels are the Japanese of the other sentences llmbench writes from a few
// parts (rundoc.Sentences), by key; their English is the sentence's own. A part
// keeps its place by index where Japanese orders the parts otherwise.
var sentenceLabels = map[string]string{
	"sent_energy_foreign":      "この区間に他の計算プロセスが GPU を使用しました（%s）：その電力がサーバーの電力として数えられてしまいます",
	"sent_energy_no_device":    "テレメトリのソースがデバイスを 1 つも報告しませんでした",
	"sent_energy_no_length":    "区間に長さがありません",
	"sent_energy_no_start":     "デバイス %s：区間の開始時点かそれより前のサンプルがありません",
	"sent_energy_no_end":       "デバイス %s：区間の終了時点かそれより後のサンプルがありません（サンプラーが停止したか遅れています）",
	"sent_energy_gap":          "デバイス %s：区間内に %s 秒サンプルのない間があります（サンプリング間隔 %s）",
	"sent_energy_too_few":      "サンプル不足：%[3]s 秒の区間でデバイス %[2]s から %[1]s 個（サンプリング間隔 %[4]s、%[5]s 個以上が必要）",
	"sent_energy_no_reading":   "デバイス %s：区間内に電力の読み取り値がありません",
	"sent_rate_client_late":    "クライアントは %[2]s 件中 %[1]s 件のリクエストを %[3]s を超えて遅れて送信しました（中央値 %[4]s ms）：レイテンシの一部はクライアントによるものです",
	"sent_rate_client_cpu":     "測定クライアントがほぼすべての CPU を使用しました：値はクライアントの限界かもしれません",
	"sent_price_gpus":          "GPU %s 基 × GPU 1 時間あたり $%s",
	"sent_price_undated":       "ページに日付がありません：%s は読み取った日です",
	"sent_millis_not_duration": "%s は時間ではありません（500ms、2s のように書きます）",
	"sent_millis_not_positive": "目標は正の値にしてください",
	"sent_slo_target":          "SLO の目標割合 %s：リクエストの割合を 0 より大きく 1 以下で指定してください（例：0.95）",
	"sent_slo_not_kv":          "SLO %s：名前=時間 の形で書いてください（例：ttft=500ms）",
	"sent_slo_unknown":         "SLO %s：目標は ttft、tpot、e2e です",
	"sent_slo_none":            "SLO %s に目標がありません（ttft、tpot、e2e）",
	"sent_slo_value":           "SLO %s：%s",
}

func init() {
	for _, s := range rundoc.Sentences() {
		labels[s.Key] = [2]string{s.English, sentenceLabels[s.Key]} // TestEverySentenceInJapanese
	}
}

// SentenceIn is a sentence llmbench wrote from a few parts (rundoc.Sentences) in
// lang, its parts as written — each said in lang itself where it is such a sentence
// (an SLO's wrapped error); any other text as it is.
func SentenceIn(lang, s string) string {
	if normLang(lang) == "en" {
		return s
	}
	sen, parts, ok := rundoc.ReadSentence(s)
	if !ok {
		return s
	}
	args := make([]any, len(parts))
	for i, p := range parts {
		args[i] = SentenceIn(lang, p)
	}
	return T(lang, sen.Key, args...)
}

// priceNoteIn is a price's notes (rundoc.PriceNoteJoin between them) in lang.
func priceNoteIn(lang, note string) string {
	parts := strings.Split(note, rundoc.PriceNoteJoin)
	for i, p := range parts {
		parts[i] = SentenceIn(lang, p)
	}
	return strings.Join(parts, rundoc.PriceNoteJoin)
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
