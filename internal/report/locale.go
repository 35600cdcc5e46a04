package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Languages lists the languages every label exists in.
func Languages() []string { return []string{"en", "ja"} }

// normLang maps a language tag to one this package speaks: "ja", "ja-JP" → "ja";
// anything else → "en".
func normLang(lang string) string {
	if strings.HasPrefix(strings.ToLower(lang), "ja") {
		return "ja"
	}
	return "en"
}

// labels holds every text the renderers write, in every language. Keys are stable so
// that the site can use the same texts (the nav_* keys are the site's own menu).
var labels = map[string][2]string{ // [en, ja]
	"speed_test_matrix": {"Speed test matrix", "スピードテストマトリクス"},
	"by":                {"by %s", "作成者 %s"},
	"on":                {"%s on %s", "%s on %s"},
	"on_cpu":            {"%s on CPU%s", "%s、CPU で実行%s"},
	"kind_measured":     {"Measured", "実測"},
	"kind_emulated":     {"Emulated", "エミュレーション"},
	"kind_predicted":    {"Predicted", "予測"},
	"warn_emulated": {"These numbers come from llmbench's built-in emulator, not from real hardware.",
		"この数値は llmbench 内蔵のエミュレーターによるもので、実機の測定値ではありません。"},
	"warn_predicted": {"Computed by the decode calculator from GPU and model specs; nothing was measured.",
		"GPU とモデルの仕様からデコード計算機で算出した値で、測定値ではありません。"},
	"plan":                {"%d %s (%s) × %d %s (%s)", "%d %s (%s) × %d %s (%s)"},
	"plan_contexts":       {"contexts", "コンテキスト"},
	"plan_context":        {"context", "コンテキスト"},
	"plan_levels":         {"concurrency levels", "同時実行レベル"},
	"plan_level":          {"concurrency level", "同時実行レベル"},
	"plan_prefill":        {"prefill at %s", "プリフィル %s"},
	"hardware":            {"Hardware", "ハードウェア"},
	"engine_card":         {"Engine", "エンジン"},
	"run_card":            {"Run", "実行条件"},
	"type":                {"Type", "種類"},
	"gpu":                 {"GPU", "GPU"},
	"vram":                {"VRAM", "VRAM"},
	"cpu":                 {"CPU", "CPU"},
	"ram":                 {"RAM", "メモリ"},
	"os":                  {"OS", "OS"},
	"engine":              {"Engine", "エンジン"},
	"version":             {"Version", "バージョン"},
	"quantization":        {"Quantization", "量子化"},
	"backend":             {"Backend", "バックエンド"},
	"build":               {"Build", "ビルド"},
	"served_model":        {"Served model", "提供モデル名"},
	"model_id":            {"Model", "モデル"},
	"revision":            {"Revision", "リビジョン"},
	"decode_test":         {"Decode test", "デコードテスト"},
	"prefill_mode":        {"Prefill mode", "プリフィル方式"},
	"time_per_meas":       {"Time per measurement", "測定あたりの時間"},
	"max_output":          {"Max output", "最大出力"},
	"kv_capacity":         {"KV cache", "KV キャッシュ"},
	"kv_unknown":          {"unknown (every cell ran)", "不明（全セルを実行）"},
	"hw_discrete_gpu":     {"Discrete GPU", "ディスクリート GPU"},
	"hw_integrated_gpu":   {"Integrated GPU", "統合 GPU"},
	"hw_apple_silicon":    {"Apple Silicon", "Apple シリコン"},
	"hw_cpu":              {"CPU only", "CPU のみ"},
	"hw_emulated":         {"Emulated", "エミュレーション"},
	"hw_emulated_preset":  {"Emulated (%s)", "エミュレーション（%s）"},
	"dt_fixed-duration":   {"Fixed duration", "固定時間"},
	"pm_decode-warmup":    {"Measured during decode warm-up", "デコードのウォームアップ中に測定"},
	"pm_separate":         {"Separate cold requests", "個別のコールドリクエストで測定"},
	"pm_predicted":        {"Predicted for one cold request at each context; nothing measured", "各コンテキストのコールドリクエスト 1 件について予測（計測なし）"},
	"n_tokens":            {"%s tokens", "%s トークン"},
	"launch_command":      {"Launch command", "起動コマンド"},
	"copy":                {"Copy", "コピー"},
	"copied":              {"Copied", "コピーしました"},
	"copy_refused":        {"Copying was refused: the command is selected, press Ctrl+C (⌘C)", "コピーできませんでした。コマンドを選択したので Ctrl+C（⌘C）でコピーしてください"},
	"prefill":             {"Prefill", "プリフィル"},
	"prefill_sub":         {"prompt tok/s by context length", "コンテキスト長ごとのプロンプト処理速度 (tok/s)"},
	"context":             {"Context", "コンテキスト"},
	"n_context":           {"%s context", "%s コンテキスト"},
	"prompt_toks":         {"Prompt tok/s", "プロンプト tok/s"},
	"ttft":                {"TTFT", "TTFT"},
	"x_ttft":              {"%s TTFT", "TTFT %s"},
	"decode":              {"Sustained decode", "持続デコード"},
	"decode_sub":          {"total tok/s · rows are context length, columns are simultaneous requests", "合計 tok/s · 行はコンテキスト長、列は同時リクエスト数"},
	"decode_sub_text":     {"total tok/s (TTFT) · rows are context length, columns are simultaneous requests", "合計 tok/s (TTFT) · 行はコンテキスト長、列は同時リクエスト数"},
	"note_over_capacity":  {"Over capacity: not run because this many requests at this context would exceed the server's KV cache.", "容量超過：このコンテキストでこの数のリクエストを同時に送るとサーバーの KV キャッシュを超えるため、実行していません。"},
	"note_tbt":            {"Time between tokens is the time per output token (TPOT, as rate runs and vLLM name it): each stream's time from its first to its last token over the tokens after the first, median over streams. ITL is the gap between chunks as they arrived.", "トークン間隔は出力トークンあたりの時間（TPOT。レート測定や vLLM と同じ定義）です。各ストリームの最初から最後のトークンまでの時間を最初以降のトークン数で割り、ストリーム間の中央値を取ります。ITL は届いたチャンク同士の間隔です。"},
	"note_ttft":           {"TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.", "TTFT はベンチマークがサーバーのプロンプトキャッシュを温めた後に測定しているため、プリフィル時間をほぼ含みません。"},
	"charts":              {"Charts", "グラフ"},
	"chart_total":         {"Total tok/s vs simultaneous requests", "同時リクエスト数と合計 tok/s"},
	"chart_per_request":   {"Per-request tok/s vs simultaneous requests: what batching costs each user", "同時リクエスト数と1リクエストあたり tok/s：バッチ処理が各ユーザーに与える影響"},
	"chart_prefill":       {"Prefill tok/s vs context length", "コンテキスト長とプリフィル tok/s"},
	"axis_requests":       {"simultaneous requests", "同時リクエスト数"},
	"axis_context":        {"context length (tokens)", "コンテキスト長（トークン）"},
	"axis_total":          {"total tok/s", "合計 tok/s"},
	"axis_per_request":    {"tok/s per request", "1リクエストあたり tok/s"},
	"axis_prompt":         {"prompt tok/s", "プロンプト tok/s"},
	"no_data":             {"No measured values to draw.", "描画できる測定値がありません。"},
	"all":                 {"All measurements", "全測定値"},
	"all_sub":             {"Latencies are medians. Total tok/s is output across all simultaneous requests.", "レイテンシは中央値です。合計 tok/s はすべての同時リクエストの出力の合計です。"},
	"sort_hint":           {"Click a column header to sort.", "列見出しをクリックすると並べ替えます。"},
	"phase":               {"Phase", "フェーズ"},
	"requests_at_once":    {"Requests at once", "同時リクエスト数"},
	"status":              {"Status", "状態"},
	"total_toks":          {"Total tok/s", "合計 tok/s"},
	"per_request_toks":    {"Per request tok/s", "1リクエストあたり tok/s"},
	"tbt":                 {"Time between tokens", "トークン間隔"},
	"avg_active":          {"Average active requests", "平均アクティブリクエスト数"},
	"completed":           {"Completed requests", "完了リクエスト数"},
	"output_tokens":       {"Output tokens", "出力トークン数"},
	"measured_for":        {"Measured for", "測定時間"},
	"cache_hit":           {"Cache hit", "キャッシュヒット率"},
	"notes":               {"Notes", "注記"},
	"cell_notes":          {"Cell notes", "セルの注記"},
	"phase_prefill":       {"Prefill", "プリフィル"},
	"phase_decode":        {"Sustained decode", "持続デコード"},
	"st_valid":            {"Valid", "有効"},
	"st_over_capacity":    {"Over capacity", "容量超過"},
	"st_failed":           {"Failed", "失敗"},
	"st_invalid":          {"Invalid", "無効"},
	"st_interrupted":      {"Interrupted", "中断"},
	"st_pending":          {"Pending", "未実行"},
	"st_predicted":        {"Predicted", "予測"},
	"st_missing":          {"Not in run", "記録なし"},
	"n_queueing":          {"requests waited in the server's queue", "サーバーのキューでリクエストが待機"},
	"n_peak_streaming":    {"at most %s of %s requests streamed at once", "同時にストリームしたリクエストは最大 %s / %s"},
	"n_preemptions":       {"%s preemptions", "プリエンプション %s 回"},
	"n_errors":            {"%s of %s requests failed", "%s / %s リクエストが失敗"},
	"n_ended_early":       {"%s requests ended before max output (EOS)", "%s リクエストが最大出力前に終了 (EOS)"},
	"n_client_limited":    {"limited by the measuring client, not the server", "サーバーではなく測定側クライアントの限界"},
	"n_flag":              {"flag: %s", "フラグ：%s"},
	"n_cache_hit":         {"prefix cache hit %s", "プレフィックスキャッシュヒット率 %s"},
	"n_server":            {"server: %s", "サーバー：%s"},
	"n_running":           {"running %s", "実行中 %s"},
	"n_waiting":           {"waiting %s", "待機 %s"},
	"n_kv_usage":          {"KV usage %s", "KV 使用率 %s"},
	"n_mean_max":          {"mean %s, max %s", "平均 %s、最大 %s"},
	"n_p90_p99":           {"%s p90 %s, p99 %s", "%s p90 %s、p99 %s"},
	"n_p90":               {"%s p90 %s", "%s p90 %s"},
	"ms":                  {"%s ms", "%s ms"},
	"s":                   {"%s s", "%s 秒"},
	"power_w":             {"Power W", "電力 W"},
	"j_per_token":         {"J/token", "J/トークン"},
	"usd_per_mtok":        {"$/Mtok", "$/Mトークン"},
	"chart_energy":        {"Energy per token (J/token) vs simultaneous requests", "同時リクエスト数とトークンあたりエネルギー (J/トークン)"},
	"axis_energy":         {"joules per output token", "出力トークンあたりジュール"},
	"energy_card":         {"Energy", "エネルギー"},
	"telemetry":           {"Telemetry", "計測"},
	"price":               {"Price", "価格"},
	"usd_per_hour":        {"$%s per hour", "1時間あたり $%s"},
	"n_energy_reason":     {"no energy figure: %s", "エネルギー値なし：%s"},
	"n_power":             {"power mean %s W, max %s W", "電力 平均 %s W、最大 %s W"},
	"n_gpu_util":          {"GPU utilization %s, memory %s MiB", "GPU 使用率 %s、メモリ %s MiB"},
	"n_throttle":          {"clock events: %s", "クロックイベント：%s"},
	"n_estimate":          {"energy estimated from the board power, not measured", "エネルギーはボード電力からの推定値で、測定値ではありません"},
	"note_power":          {"Power measured by %s: %s", "電力の計測（%s）：%s"},
	"note_no_telemetry":   {"No power was measured: %s.", "電力は測定されていません：%s。"},
	"note_price":          {"Price: $%s per hour (%s): %s. $/Mtok = the price per second ÷ total tok/s × 10⁶.", "価格：1時間あたり $%s（%s）：%s。$/Mトークン = 1秒あたりの価格 ÷ 合計 tok/s × 10⁶。"},
	"note_energy_missing": {"No energy figure for %s: %s.", "%s のエネルギー値なし：%s。"},
	"note_energy_columns": {"Power W is the mean over the measurement, all GPUs counted together; J/token is that energy over the output tokens (for a prefill row, over the prompt tokens of its cold request).", "電力 W は測定中の平均（全 GPU の合計）、J/トークンはそのエネルギーを出力トークン数で割った値です（プリフィル行ではコールドリクエストのプロンプトトークン数で割ります）。"},
	"nav_home":            {"Home", "はじめに"},
	"nav_leaderboard":     {"Leaderboard", "リーダーボード"},
	"nav_calculator":      {"Decode calculator", "デコード計算機"},
	"nav_models":          {"Models", "モデル"},
	"nav_runs":            {"Runs", "実行結果"},
	"nav_hardware":        {"Hardware", "ハードウェア"},
	"nav_benchmarks":      {"Benchmarks", "ベンチマーク"},
	"nav_api":             {"API", "API"},
	"nav_language":        {"Language", "言語"},
}

// T returns the label key in lang (en or ja), formatted with args when there are any.
// An unknown key comes back as itself, so a missing label shows instead of vanishing.
func T(lang, key string, args ...any) string {
	l, ok := labels[key]
	if !ok {
		return key
	}
	s := l[0]
	if normLang(lang) == "ja" && l[1] != "" {
		s = l[1]
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// FormatNumber writes v with decimals digits after the point and the locale's digit
// grouping: 2163 → "2,163.0" with one decimal. English and Japanese both group by
// thousands with "," and use "." for the decimal point.
func FormatNumber(lang string, v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// FormatInt writes a whole number with the locale's grouping: 9878 → "9,878".
func FormatInt(lang string, n int) string { return FormatNumber(lang, float64(n), 0) }

// FormatMs writes a duration in milliseconds: "3,808 ms" (decimals digits).
func FormatMs(lang string, ms float64, decimals int) string {
	return T(lang, "ms", FormatNumber(lang, ms, decimals))
}

// FormatSeconds writes a duration in seconds with one decimal: "30.0 s" (ja "30.0 秒").
func FormatSeconds(lang string, s float64) string {
	return T(lang, "s", FormatNumber(lang, s, 1))
}

// FormatGB writes a memory size the way the seed page does, in binary gigabytes
// labelled GB: 25769803776 → "24 GB". Sizes that are not whole keep one decimal.
func FormatGB(lang string, bytes int64) string {
	gb := float64(bytes) / (1 << 30)
	if math.Abs(gb-math.Round(gb)) < 0.05 {
		return FormatNumber(lang, math.Round(gb), 0) + " GB"
	}
	return FormatNumber(lang, gb, 1) + " GB"
}

// FormatPercent writes a ratio (0.97) as a percentage ("97%").
func FormatPercent(lang string, ratio float64) string {
	return FormatNumber(lang, ratio*100, 0) + "%"
}
