package site

// cardMessages are the texts of a run's headline figures (cards.go), merged into
// messages.
var cardMessages = map[string][2]string{
	"card_j_per_token":            {"Lowest J/token", "最小 J/トークン"},
	"card_usd_per_mtok":           {"Lowest $/Mtok", "最小 $/Mtok"},
	"card_at_cell":                {"at %s × %d", "%s × %d"},
	"card_max_rate":               {"Highest rate meeting the SLO", "SLO を満たす最高レート"},
	"card_max_rate_search":        {"found by --find-max-rate in %d steps", "--find-max-rate で探索（%d ステップ）"},
	"card_max_rate_search_failed": {"found by --find-max-rate in %d steps; %s req/s did not", "--find-max-rate で探索（%d ステップ）。%s req/秒は未達"},
	"card_max_rate_rates":         {"of the %d rates measured, met without saturating", "測定した %d 種類のレートのうち、飽和せずに満たしたもの"},
	"card_none_met":               {"none", "なし"},
	"card_no_slo":                 {"no SLO was given (llmbench run --slo)", "SLO の指定なし（llmbench run --slo）"},
	"card_goodput":                {"Best goodput (req/s meeting the SLO)", "最大グッドプット（SLO を満たした req/秒）"},
	"card_at_rate":                {"at %s", "%s のとき"},
	"card_no_valid_rate":          {"no valid rate cell", "有効なレートのセルなし"},
	"card_ttft_p90":               {"TTFT p90 at the highest valid rate", "有効な最高レートでの TTFT p90"},
	"card_tpot_p90":               {"TPOT p90 at the highest valid rate", "有効な最高レートでの TPOT p90"},
	"card_p90_few":                {"a p90 needs %s requests, the cell had %s", "p90 には %s リクエストが必要（このセルは %s）"},
	"chart_rate_goodput":          {"Goodput and achieved requests/s by request rate", "リクエストレートごとのグッドプットと達成リクエスト/秒"},
	"chart_rate_achieved":         {"Achieved requests/s by request rate", "リクエストレートごとの達成リクエスト/秒"},
	"chart_line_achieved":         {"achieved", "達成"},
	"chart_line_goodput":          {"goodput", "グッドプット"},
	"chart_point_achieved":        {"rate %s: %s req/s achieved", "レート %s：達成 %s req/秒"},
	"chart_point_goodput":         {"rate %s: goodput %s req/s", "レート %s：グッドプット %s req/秒"},
	"axis_rps":                    {"requests/s", "リクエスト/秒"},
	"axis_goodput":                {"goodput (req/s meeting the SLO)", "グッドプット（SLO を満たした req/秒）"},
	"chart_goodput_compare":       {"Goodput vs achieved requests/s: how much of what each server completed met the SLO", "達成リクエスト/秒とグッドプット：各サーバーが完了したうち SLO を満たした量"},
	"goodput_point":               {"%s · rate %s: %s req/s achieved, goodput %s", "%s · レート %s：達成 %s req/秒、グッドプット %s"},
	"chart_board_rate":            {"%s by request rate, at %s input tokens", "リクエストレートごとの%s（入力 %s トークン）"},
	"chart_board_point":           {"%s · rate %s: %s", "%s · レート %s：%s"},
	"rate_run_eyebrow":            {"Request-rate test (open loop)", "リクエストレートテスト（オープンループ）"},
}

func init() {
	for k, v := range cardMessages {
		if _, dup := messages[k]; dup {
			panic("site: message " + k + " defined twice")
		}
		messages[k] = v
	}
}
