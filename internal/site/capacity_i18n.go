package site

// capacityMessages are the texts of the site's capacity answers (capacity.go,
// calcusers.go, the capacity metrics), merged into messages; the sentences themselves
// are the report package's (report.CapacitySentences).
var capacityMessages = map[string][2]string{
	"metric_users":             {"Users at the target speed (whole server)", "目標速度での同時ユーザー数（サーバー全体）"},
	"metric_users_per_gpu":     {"Users per GPU at the target speed", "目標速度での GPU あたり同時ユーザー数"},
	"metric_users_per_kw":      {"Users per kW at the target speed", "目標速度での 1 kW あたり同時ユーザー数"},
	"metric_users_per_usd_h":   {"Users per $/h at the target speed", "目標速度での 1 $/時 あたり同時ユーザー数"},
	"level_speed":              {"Target tok/s per user", "1 人あたり目標 tok/s"},
	"cell_target":              {"%s at ≥ %s tok/s each, first token ≤ 1 s, %s context", "%s（1 人あたり %s tok/s 以上・最初のトークン 1 秒以内、%s コンテキスト）"},
	"picker_intro_target":      {"Pick a cell: rows are context length, columns are target speeds per user (tok/s, first token within 1 s); each number is how many runs have that cell.", "セルを選んでください。行はコンテキスト長、列は 1 人あたりの目標速度（tok/s、最初のトークン 1 秒以内）で、数字はそのセルを持つ実行結果の数です。"},
	"glance_target":            {"The run's row at %s (by target speed)", "%s での行（目標速度ごと）"},
	"reason_speed":             {"must be a speed in tok/s per user, above 0 and at most %d", "1 人あたりの速度（tok/s）を 0 より大きく %d 以下で指定してください"},
	"users_best_title":         {"How many users", "同時に何人まで"},
	"users_best_sub":           {"the measured run that serves the most users per GPU at each context, each at ≥ %s tok/s with the first token within 1 s", "各コンテキストで GPU あたりの同時ユーザー数が最も多い実測の実行（1 人あたり %s tok/s 以上、最初のトークン 1 秒以内）"},
	"users_col":                {"Users", "同時ユーザー数"},
	"users_per_gpu_col":        {"Users per GPU", "GPU あたりの同時ユーザー数"},
	"users_board":              {"rank all", "すべてのランキング"},
	"users_note":               {"The most simultaneous requests at which every request meets the targets, for the workload measured: not a promise under another (see the docs' capacity page).", "測定した負荷で、すべてのリクエストが目標を満たす最大の同時リクエスト数です。別の負荷での保証ではありません（ドキュメントの capacity を参照）。"},
	"compare_users":            {"Users at ≥ %s tok/s", "%s tok/s 以上での同時ユーザー数"},
	"calc_users_context":       {"Users at context", "ユーザー数を求めるコンテキスト"},
	"calc_field_speed":         {"target tok/s per user", "1 人あたり目標 tok/s"},
	"calc_field_users_context": {"context of the users question", "ユーザー数を求めるコンテキスト"},
	"calc_users_q":             {"How many users can %s serve at ≥ %s tok/s each on %s at %s?", "%[1]s は %[3]s で %[4]s のとき、1 人あたり %[2]s tok/s 以上で何人に同時に応答できるか"},
	"calc_users_note":          {"Predicted at every number of simultaneous requests up to what the KV cache holds, not only the matrix's columns; the first token is the warm one (the context already cached).", "マトリクスの列に限らず、KV キャッシュに収まるすべての同時リクエスト数で予測しています。最初のトークンはウォーム（コンテキストがキャッシュ済み）のものです。"},
}

func init() {
	for k, v := range capacityMessages {
		if _, dup := messages[k]; dup {
			panic("site: message " + k + " defined twice")
		}
		messages[k] = v
	}
}
