package report

// rateLabels are the open-loop report's texts, added to labels at init.
var rateLabels = map[string][2]string{ // [en, ja]
	"rates":               {"Request rates", "リクエストレート"},
	"rate_test":           {"Request-rate test (open loop)", "リクエストレートテスト（オープンループ）"},
	"rates_sub":           {"open loop: requests arrive on a seeded schedule, every latency timed from the scheduled send", "オープンループ：リクエストはシード固定のスケジュールで到着し、レイテンシはすべて予定送信時刻から計測"},
	"rate":                {"Rate", "レート"},
	"rate_inf":            {"inf (all at once)", "inf（一斉送信）"},
	"n_rps":               {"%s req/s", "%s req/秒"},
	"req_s":               {"req/s", "req/秒"},
	"achieved":            {"Achieved req/s", "達成 req/秒"},
	"done":                {"Completed / sent", "完了 / 送信"},
	"ttft_pct":            {"TTFT p50 · p90 · p99", "TTFT p50・p90・p99"},
	"tpot_pct":            {"TPOT p50 · p90 · p99", "TPOT p50・p90・p99"},
	"itl_pct":             {"ITL p50 · p90 · p99", "ITL p50・p90・p99"},
	"e2e_pct":             {"E2E p50 · p90 · p99", "E2E p50・p90・p99"},
	"slo_met":             {"SLO met", "SLO 達成率"},
	"goodput":             {"Goodput req/s", "グッドプット req/秒"},
	"saturated":           {"saturated", "飽和"},
	"percentile":          {"Percentile", "パーセンタイル"},
	"per_request":         {"per request", "1リクエストあたり"},
	"arr_poisson":         {"Poisson arrivals", "ポアソン到着"},
	"arr_constant":        {"Constant arrivals", "等間隔到着"},
	"arr_gamma":           {"Gamma arrivals (burstiness %s)", "ガンマ到着（バースト度 %s）"},
	"rate_lengths":        {"%s → %s tokens (%s)", "入力 %s → 出力 %s トークン（%s）"},
	"rate_requests":       {"%s requests a rate", "レートごとに %s リクエスト"},
	"rate_duration":       {"%s s a rate", "レートごとに %s 秒"},
	"rate_max_conc":       {"at most %s in flight (the wait for a slot is in the latency)", "同時実行は最大 %s（スロット待ちはレイテンシに含む）"},
	"rate_prefix":         {"%s shared prefix", "共有プレフィックス %s"},
	"rate_unique":         {"prompts unique from their first token", "プロンプトは先頭トークンから一意"},
	"slo_line":            {"SLO: %s for %s of requests", "SLO：リクエストの %[2]s が %[1]s"},
	"max_rate":            {"Highest rate meeting the SLO: %s req/s", "SLO を満たす最大レート：%s req/秒"},
	"max_rate_failed":     {"(%s req/s did not)", "（%s req/秒は未達）"},
	"max_rate_none":       {"No rate tried met the SLO (%s steps)", "試したどのレートも SLO を満たしませんでした（%s ステップ）"},
	"max_rate_steps":      {"%s steps, stopped: %s", "%s ステップ、終了理由：%s"},
	"stop_precision":      {"within the precision asked", "指定精度に到達"},
	"stop_max_steps":      {"step limit reached", "ステップ上限に到達"},
	"stop_all_passed":     {"every rate tried passed (raise --max-rate-steps)", "試したレートはすべて合格（--max-rate-steps を増やしてください）"},
	"stop_none_passed":    {"no rate passed", "合格したレートなし"},
	"r_saturated":         {"saturated: %s", "飽和：%s"},
	"r_unfinished":        {"%s requests had not finished at the drain timeout (cancelled; they count as missing the SLO)", "%s リクエストがドレインのタイムアウトまでに終わらず（キャンセル、SLO 未達として計上）"},
	"r_slot_wait":         {"requests waited for one of %s client slots (median %s), inside their latency", "リクエストは %s 個のクライアントスロットを待機（中央値 %s）、待ち時間はレイテンシに含む"},
	"r_send_lag":          {"client send lag median %s", "クライアント送信遅延の中央値 %s"},
	"note_rates":          {"Percentiles need 64 requests (p90) and 662 (p99); — means too few, or requests still unfinished at the drain timeout leave it undetermined. TPOT = (E2E − TTFT) / (output tokens − 1); ITL is every gap between tokens.", "p90 は 64、p99 は 662 リクエスト以上が必要です。— はサンプル不足、またはドレイン時に未完了のリクエストがあり値が定まらないことを示します。TPOT =（E2E − TTFT）/（出力トークン数 − 1）、ITL はトークン間のすべての間隔です。"},
	"chart_rate_ttft":     {"TTFT vs achieved throughput: where latency turns up", "達成スループットと TTFT：レイテンシが跳ね上がる点"},
	"chart_rate_tpot":     {"TPOT percentiles by request rate", "リクエストレートごとの TPOT パーセンタイル"},
	"chart_rate_e2e":      {"End-to-end latency percentiles by request rate", "リクエストレートごとのエンドツーエンドレイテンシ"},
	"chart_interactivity": {"Per-request tok/s vs total tok/s: the throughput / interactivity trade-off", "合計 tok/s と1リクエストあたり tok/s：スループットと応答性のトレードオフ"},
	"axis_achieved":       {"achieved requests/s", "達成リクエスト/秒"},
	"axis_rate":           {"request rate (req/s)", "リクエストレート（req/秒）"},
	"axis_ttft_ms":        {"TTFT (ms)", "TTFT（ミリ秒）"},
	"axis_tpot_ms":        {"TPOT (ms)", "TPOT（ミリ秒）"},
	"axis_e2e_ms":         {"E2E latency (ms)", "E2E レイテンシ（ミリ秒）"},
	"dt_request-rate":     {"Request rate (open loop)", "リクエストレート（オープンループ）"},
}

func init() {
	for k, v := range rateLabels {
		if _, dup := labels[k]; dup {
			panic("report: label " + k + " defined twice")
		}
		labels[k] = v
	}
}
