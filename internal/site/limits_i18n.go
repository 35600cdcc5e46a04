package site

// limitMessages are the texts of what the site leaves out of a page to keep it within
// its limits (markdown.go, the run page), merged into messages; a matrix's listed
// reasons say theirs in the report package's labels (report.PlaceReasons).
var limitMessages = map[string][2]string{
	"embed_again": {"run %s, shown above", "実行 %s（上に表示）"},
	"embed_link":  {"run %s (this report shows no more cards)", "実行 %s（このレポートではこれ以上カードを表示しません）"},
	"report_too_large": {"This run's full report, with its %d decode cells, is too large for one page: this is the site's summary of it. The raw JSON holds every figure, and llmbench report renders the whole report from it (llmbench report RUN.json --format html -o run.html).",
		"この実行の完全なレポート（デコードセル %d 個）は 1 ページには大きすぎるため、ここにはサイトによる要約を表示しています。すべての数値は生の JSON にあり、llmbench report でそこから完全なレポートを作れます（llmbench report RUN.json --format html -o run.html）。"},
}

func init() {
	for k, v := range limitMessages {
		messages[k] = v
	}
}
