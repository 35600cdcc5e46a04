package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the capacity section ("how many users"): its sentences and table,
// computed by internal/capacity, in every language.

// capacityLabels are the capacity section's texts, added to labels at init.
var capacityLabels = map[string][2]string{ // [en, ja]
	"cap_title":           {"How many users", "同時に何人まで"},
	"cap_sub":             {"by context, the most simultaneous requests at which every request meets the targets", "コンテキストごとに、すべてのリクエストが目標を満たす最大の同時リクエスト数"},
	"cap_sub_rate":        {"the highest request rate at which the SLO was met without the queue growing", "キューを伸ばさずに SLO を満たした最大のリクエストレート"},
	"cap_targets":         {"≥ %s tok/s each, first token ≤ %s", "1 人あたり %s tok/s 以上、最初のトークン %s 以内"},
	"cap_sentence":        {"At %s context: %s at %s (limit: %s).", "%[1]s コンテキスト：%[3]s で %[2]s（制約：%[4]s）。"},
	"cap_sentence_none":   {"At %s context: not measured (%s).", "%s コンテキスト：測定なし（%s）。"},
	"cap_users_0":         {"no users", "0 人"},
	"cap_users_1":         {"1 user", "1 人"},
	"cap_users_n":         {"%s users", "%s 人"},
	"cap_interpolated":    {"%s (interpolated between %s and %s)", "%s（%s と %s の間を補間）"},
	"cap_limit_kv":        {"KV cache — %s would not fit", "KV キャッシュ — %s 件は収まりません"},
	"cap_limit_speed":     {"per-user speed — at %s, %s tok/s each", "1 人あたりの速度 — %s 件では各 %s tok/s"},
	"cap_limit_ttft":      {"first token — at %s, %s", "最初のトークン — %s 件では %s"},
	"cap_limit_beyond":    {"not measured beyond %s", "%s 件を超えては未測定"},
	"cap_limit_cell":      {"not measured beyond %s — the cell at %s is %s", "%s 件を超えては未測定 — %s 件のセルは%s"},
	"cap_first_cell":      {"the cell at %s is %s", "%s 件のセルは%s"},
	"cap_scaled":          {"%s; %s", "%s、%s"},
	"cap_per_gpu":         {"%s per GPU", "GPU あたり %s 人"},
	"cap_per_kw":          {"%s per kW", "1 kW あたり %s 人"},
	"cap_per_usd_h":       {"%s per $/h", "1 $/時 あたり %s 人"},
	"cap_table":           {"Users by target speed", "目標速度ごとの同時ユーザー数"},
	"cap_table_sub":       {"first token ≤ %s; the limit in brackets", "最初のトークン %s 以内、括弧内は制約"},
	"cap_col":             {"≥ %s tok/s", "%s tok/s 以上"},
	"cap_cell":            {"%s (%s)", "%s（%s）"},
	"cap_short_kv":        {"KV cache", "KV キャッシュ"},
	"cap_short_speed":     {"speed", "速度"},
	"cap_short_ttft":      {"TTFT", "最初のトークン"},
	"cap_short_beyond":    {"not measured beyond", "以降未測定"},
	"cap_short_interp":    {"%s, interpolated", "%s・補間"},
	"cap_short_none":      {"not measured", "未測定"},
	"cap_note":            {"Every smaller number of requests measured must meet the targets too. A cell is judged by its 95% interval where it has one (per-request tok/s by its low end, TTFT by its high end). TTFT is the matrix's warm TTFT (the context already cached: a turn of a conversation under way); a new conversation adds the prefill row's cold TTFT. A figure for this workload, not a promise under another (docs/capacity.md).", "測定した同時数のうち、それより小さいものもすべて目標を満たす必要があります。信頼区間のあるセルは区間で判定します（1リクエストあたり tok/s は下端、TTFT は上端）。TTFT はマトリクスのウォーム TTFT（コンテキストがキャッシュ済み＝会話の続きのターン）で、新しい会話ではプリフィル行のコールド TTFT が加わります。この負荷での値であり、別の負荷での保証ではありません（docs/capacity.md）。"},
	"cap_note_predicted":  {"Predicted for every number of requests up to what the KV cache holds, not only the matrix's columns.", "マトリクスの列に限らず、KV キャッシュに収まるすべての同時リクエスト数について予測しています。"},
	"cap_rate":            {"At %s input tokens (%s output): %s requests/s with %s for %s of requests (limit: %s).", "入力 %[1]s トークン（出力 %[2]s）：%[4]s をリクエストの %[5]s が満たす最大レートは %[3]s リクエスト/秒（制約：%[6]s）。"},
	"cap_rate_none":       {"At %s input tokens (%s output): no rate tried met %s for %s of requests.", "入力 %s トークン（出力 %s）：%s をリクエストの %s が満たすレートはありませんでした。"},
	"cap_rate_failed":     {"%s requests/s did not meet it", "%s リクエスト/秒は未達"},
	"cap_rate_beyond":     {"not measured beyond", "それ以上は未測定"},
	"cap_rate_searched":   {"%s; --find-max-rate search", "%s、--find-max-rate による探索"},
	"cap_chart":           {"Per-user tok/s vs simultaneous requests, with the target speeds", "同時リクエスト数と 1 人あたり tok/s（目標速度つき）"},
	"cap_chart_target":    {"≥ %s tok/s", "%s tok/s"},
	"cap_slo_ttft":        {"TTFT ≤ %s", "TTFT %s 以内"},
	"cap_slo_tpot":        {"TPOT ≤ %s", "TPOT %s 以内"},
	"cap_slo_e2e":         {"E2E ≤ %s", "E2E %s 以内"},
	"cap_and":             {", ", "、"},
	"cap_ms_or_s_seconds": {"%s s", "%s 秒"},
}

func init() {
	for k, v := range capacityLabels {
		labels[k] = v
	}
}

// capacityView is the capacity section as every format shows it.
type capacityView struct {
	Sub       string
	Sentences []string // one per context row (or the open-loop sentence)
	// The table: context × target speed, at the TTFT target.
	TableSub string
	Head     []string
	Rows     [][]string
	Notes    []string
	// Summary is what the section says, as numbers (the csv and json formats).
	Summary *capacity.Summary
}

// Table is the section's table for the html page.
func (c *capacityView) Table() keyedTable {
	return keyedTable{Class: "lb-capacity-table", Head: c.Head, Rows: c.Rows}
}

// capacityTargets are opts' targets, or the defaults.
func capacityTargets(opts Options) capacity.Targets {
	if opts.Capacity == (capacity.Targets{}) {
		return capacity.DefaultTargets()
	}
	return opts.Capacity
}

// newCapacityView computes the section from src (the rendered document, or the one
// opts.CapacityFrom names) in lang; nil when the document has nothing to answer with.
func newCapacityView(run *rundoc.Run, opts Options, lang string) *capacityView {
	src := run
	if opts.CapacityFrom != nil {
		src = opts.CapacityFrom
	}
	t := capacityTargets(opts)
	sum := capacity.Summarize(src, t)
	if sum == nil {
		return nil
	}
	cv := &capacityView{Summary: sum, Sub: T(lang, "cap_sub")}
	if sum.Rate != nil {
		cv.Sub, cv.Sentences = T(lang, "cap_sub_rate"), []string{rateSentence(lang, sum.Rate)}
		return cv
	}
	for _, r := range sum.Rows {
		cv.Sentences = append(cv.Sentences, rowSentence(lang, t, r, capacity.GPUs(src)))
	}
	cv.TableSub = T(lang, "cap_table_sub", durationText(lang, t.TTFTMs))
	cv.Head = []string{T(lang, "context")}
	for _, a := range sum.Table {
		cv.Head = append(cv.Head, T(lang, "cap_col", trimNumber(lang, a.Targets.TokS)))
	}
	for i, r := range sum.Rows {
		row := []string{rundoc.FormatTokens(r.Context)}
		for _, a := range sum.Table {
			row = append(row, tableCell(lang, a.Rows[i]))
		}
		cv.Rows = append(cv.Rows, row)
	}
	if sum.Predicted && opts.CapacityFrom != nil {
		cv.Notes = append(cv.Notes, T(lang, "cap_note_predicted"))
	}
	cv.Notes = append(cv.Notes, T(lang, "cap_note"))
	return cv
}

// CapacitySentences are the capacity section's sentences, one per context row (one
// for an open-loop run): what llmbench run prints last.
func CapacitySentences(run *rundoc.Run, opts Options) []string {
	if cv := newCapacityView(run, opts, normLang(opts.Lang)); cv != nil {
		return cv.Sentences
	}
	return nil
}

// rowSentence is one row's answer: "At 16K context: 2 users at ≥ 20 tok/s each, first
// token ≤ 1 s (limit: KV cache — 4 would not fit)." with its figures per GPU (on a
// machine of several), per kW and per $/h where known.
func rowSentence(lang string, t capacity.Targets, r capacity.Row, gpus int) string {
	ctx := rundoc.FormatTokens(r.Context)
	if !r.Answered() {
		return T(lang, "cap_sentence_none", ctx, T(lang, "cap_first_cell", strconv.Itoa(r.Next), lowerStatus(lang, r.NextStatus)))
	}
	users := usersText(lang, r.Users)
	if r.Interpolated {
		users = T(lang, "cap_interpolated", users, strconv.Itoa(r.Measured), strconv.Itoa(r.Next))
	}
	limit := limitText(lang, r)
	var scaled []string
	if r.PerGPU != nil && gpus > 1 {
		scaled = append(scaled, T(lang, "cap_per_gpu", FormatNumber(lang, *r.PerGPU, 1)))
	}
	if r.PerKW != nil {
		scaled = append(scaled, T(lang, "cap_per_kw", FormatNumber(lang, *r.PerKW, 1)))
	}
	if r.PerUSDHour != nil {
		scaled = append(scaled, T(lang, "cap_per_usd_h", FormatNumber(lang, *r.PerUSDHour, 2)))
	}
	if len(scaled) > 0 && r.Users > 0 { // 0 per GPU says nothing the sentence does not
		limit = T(lang, "cap_scaled", limit, strings.Join(scaled, T(lang, "cap_and")))
	}
	return T(lang, "cap_sentence", ctx, users, targetsText(lang, t), limit)
}

// limitText names what stopped the row, with the figure that did.
func limitText(lang string, r capacity.Row) string {
	next := strconv.Itoa(r.Next)
	switch r.Limit {
	case capacity.LimitKVCache:
		return T(lang, "cap_limit_kv", next)
	case capacity.LimitSpeed:
		return T(lang, "cap_limit_speed", next, FormatNumber(lang, deref(r.NextTokS), 1))
	case capacity.LimitTTFT:
		return T(lang, "cap_limit_ttft", next, FormatMs(lang, deref(r.NextTTFTMs), 0))
	}
	if r.Next > 0 {
		return T(lang, "cap_limit_cell", strconv.Itoa(r.Measured), next, lowerStatus(lang, r.NextStatus))
	}
	return T(lang, "cap_limit_beyond", strconv.Itoa(r.Measured))
}

// tableCell is a row's answer in the table: "8 (KV cache)", "12 (speed, interpolated)".
func tableCell(lang string, r capacity.Row) string {
	if !r.Answered() {
		return T(lang, "cap_short_none")
	}
	limit := T(lang, "cap_short_"+map[capacity.Limit]string{capacity.LimitKVCache: "kv", capacity.LimitSpeed: "speed", capacity.LimitTTFT: "ttft", capacity.LimitNotMeasured: "beyond"}[r.Limit])
	if r.Interpolated {
		limit = T(lang, "cap_short_interp", limit)
	}
	return T(lang, "cap_cell", FormatInt(lang, r.Users), limit)
}

// lowerStatus is a status as a word inside a sentence: "invalid".
func lowerStatus(lang string, st rundoc.Status) string { return strings.ToLower(statusLabel(lang, st)) }

func usersText(lang string, n int) string {
	switch n {
	case 0:
		return T(lang, "cap_users_0")
	case 1:
		return T(lang, "cap_users_1")
	}
	return T(lang, "cap_users_n", FormatInt(lang, n))
}

// targetsText is "≥ 20 tok/s each, first token ≤ 1 s".
func targetsText(lang string, t capacity.Targets) string {
	return T(lang, "cap_targets", trimNumber(lang, t.TokS), durationText(lang, t.TTFTMs))
}

// durationText writes a latency target: whole tenths of a second from 1 s up in
// seconds ("1 s", "1.5 s"), anything else in ms ("500 ms").
func durationText(lang string, ms float64) string {
	if ms >= 1000 && math.Mod(ms, 100) == 0 {
		return T(lang, "cap_ms_or_s_seconds", trimNumber(lang, ms/1000))
	}
	return FormatMs(lang, ms, decimalsOf(ms))
}

// trimNumber writes v with as few decimals as it needs (up to 2): 20, 12.5.
func trimNumber(lang string, v float64) string { return FormatNumber(lang, v, decimalsOf(v)) }

func decimalsOf(v float64) int {
	for d := 0; d < 2; d++ {
		p := math.Pow(10, float64(d))
		if math.Abs(v*p-math.Round(v*p)) < 1e-9 {
			return d
		}
	}
	return 2
}

func deref(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// CapacityCell is a row's answer as the capacity table writes it, for pages that lay
// their own table out (the site's compare page): "8 (KV cache)", "12 (speed,
// interpolated)".
func CapacityCell(lang string, r capacity.Row) string { return tableCell(normLang(lang), r) }
