package site

// queryMessages are the reasons a page or the API gives for a query parameter it
// cannot use (FieldError.ReasonIn), merged into messages. The API answers in English.
var queryMessages = map[string][2]string{
	"qerr_sort":         {"must be newest, decode, peak, prefill_32k or per_gb", "newest、decode、peak、prefill_32k、per_gb のいずれかで指定してください"},
	"qerr_one_of":       {"must be one of %s", "次のいずれかで指定してください：%s"},
	"qerr_context":      {"must be a context length in tokens, like 32768 or 32K", "トークン数のコンテキスト長で指定してください（例：32768 または 32K）"},
	"qerr_level":        {"must be a number from 1 to %d", "1〜%d の数で指定してください"},
	"qerr_rate":         {"must be a request rate per second (a number above 0, at most %g) or inf", "毎秒のリクエストレート（0 より大きく %g 以下の数）か inf で指定してください"},
	"qerr_arrival":      {"must be poisson, constant or gamma:BURSTINESS (as llmbench run --arrival takes it)", "poisson、constant、gamma:BURSTINESS のいずれかで指定してください（llmbench run --arrival と同じ形式）"},
	"qerr_len_dist":     {"must be fixed, uniform:R or normal:R (as llmbench run --len-dist takes it)", "fixed、uniform:R、normal:R のいずれかで指定してください（llmbench run --len-dist と同じ形式）"},
	"qerr_prefix_share": {"must be a share of the prompt in [0, 1)", "プロンプトに占める割合を 0 以上 1 未満で指定してください"},
	"qerr_requests_inf": {"a rate inf cell sends every request at once, and its figures depend on how many: give requests=N (the cell's request count)", "rate inf のセルは全リクエストを同時に送るため、値はその数で変わります。requests=N（セルのリクエスト数）を指定してください"},
	"qerr_duration":     {"must be the seconds each cell scheduled arrivals for (llmbench run --duration), above 0", "各セルが到着を予定した秒数（llmbench run --duration）を 0 より大きい値で指定してください"},
	"qerr_slo":          {"must be latency targets as llmbench run --slo takes them, e.g. ttft:500ms,tpot:50ms (or ttft=500ms,tpot=50ms): %s", "llmbench run --slo と同じ形式のレイテンシ目標で指定してください（例：ttft:500ms,tpot:50ms）：%s"},
	"qerr_target":       {"must be the share of requests that must meet the SLO, in (0, 1]", "SLO を満たすべきリクエストの割合を 0 より大きく 1 以下で指定してください"},
	"qerr_size":         {"must be one of %s (billions of parameters)", "次のいずれかで指定してください（パラメータ数、10 億単位）：%s"},
	"qerr_mode":         {"must be matrix (the concurrency matrix) or rate (open-loop rate cells)", "matrix（同時実行数のマトリクス）か rate（オープンループのレートのセル）で指定してください"},
	"qerr_kind":         {"must be measured, emulated, predicted (comma-separated) or all", "measured、emulated、predicted（カンマ区切り）か all で指定してください"},
	"qerr_limit":        {"must be 1–%d", "1〜%d で指定してください"},
	"qerr_offset":       {"must be a whole number ≥ 0", "0 以上の整数で指定してください"},
	"qerr_field":        {"%s: %s", "%s：%s"},
}

func init() {
	for k, v := range queryMessages {
		messages[k] = v
	}
}
