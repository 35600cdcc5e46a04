package site

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
)

// Languages the site speaks.
const (
	LangEN = "en"
	LangJA = "ja"
)

// langCookie remembers the reader's choice once made with ?lang=.
const langCookie = "llmbench_lang"

// messages holds the texts only the site's pages have, [en, ja], and the few where
// the site says it differently from the report package (the menu follows the seed
// site, whose Japanese UI keeps some entries in English); T takes every other label
// from report.T.
var messages = map[string][2]string{
	"site_name":             {"llmbench", "llmbench"},
	"site_tagline":          {"Speed test matrices of LLM inference servers", "LLM推論サーバーのスピードテストマトリクス"},
	"nav_start":             {"Getting started", "はじめに"},
	"nav_calculator":        {"Decode calculator", "Decode calculator"},
	"nav_orgs":              {"Organizations", "Organizations"},
	"nav_reports":           {"Reports", "Reports"},
	"nav_runs":              {"Matrix runs", "Matrix runs"},
	"nav_docs":              {"Docs", "ドキュメント"},
	"lang_other":            {"日本語", "English"},
	"compare":               {"Compare", "比較"},
	"compare_selected":      {"Compare selected (2–4)", "選択した実行を比較（2〜4件）"},
	"compare_need":          {"Pick two to four runs to compare (tick them in Matrix runs).", "比較する実行を2〜4件選んでください（Matrix runs でチェック）。"},
	"compare_baseline":      {"Differences are against the first run.", "差分は最初の実行に対する値です。"},
	"metric":                {"Rank by", "ランキング指標"},
	"metric_decode":         {"Single-stream decode tok/s (context 0)", "単一ストリーム decode tok/s（コンテキスト 0）"},
	"metric_peak":           {"Peak total tok/s", "ピーク合計 tok/s"},
	"metric_prefill_32k":    {"Prefill tok/s at 32K", "32K での prefill tok/s"},
	"metric_per_gb":         {"Peak tok/s per GB of VRAM", "VRAM 1 GB あたりのピーク tok/s"},
	"filter_model":          {"Model", "モデル"},
	"filter_gpu":            {"GPU", "GPU"},
	"filter_engine":         {"Engine", "エンジン"},
	"filter_quant":          {"Quantization", "量子化"},
	"filter_profile":        {"Benchmark profile", "ベンチマークプロファイル"},
	"filter_any":            {"Any", "すべて"},
	"filter_apply":          {"Apply", "適用"},
	"include_all":           {"Include emulated and predicted runs", "エミュレーション・予測の結果も含める"},
	"rank":                  {"#", "順位"},
	"run":                   {"Run", "実行"},
	"submitter":             {"Submitter", "投稿者"},
	"submitted":             {"Submitted", "投稿日"},
	"kind":                  {"Kind", "種別"},
	"no_runs":               {"No runs yet. Submit one: see Getting started.", "まだ実行結果がありません。「はじめに」を参照して投稿してください。"},
	"next":                  {"Next →", "次へ →"},
	"prev":                  {"← Previous", "← 前へ"},
	"runs_count":            {"%s runs", "%s 件"},
	"leaderboard_note":      {"Only measured runs are ranked unless you include emulated and predicted ones. Runs without the chosen figure are left out.", "エミュレーション・予測の結果は、含めると指定しない限りランキングに入りません。選んだ指標の値がない実行は表示されません。"},
	"raw_json":              {"Run document (JSON)", "実行ドキュメント（JSON）"},
	"summary":               {"Summary", "概要"},
	"profile":               {"Profile", "プロファイル"},
	"prefill":               {"Prefill", "Prefill"},
	"prefill_sub":           {"prompt tok/s by context length", "コンテキスト長ごとのプロンプト tok/s"},
	"over_capacity":         {"Over capacity", "容量超過"},
	"over_capacity_note":    {"Over capacity: not run because this many requests at this context would exceed the server's KV cache.", "容量超過：このコンテキストでこの数のリクエストを送るとサーバーの KV キャッシュを超えるため、実行していません。"},
	"runs":                  {"Runs", "実行結果"},
	"specs":                 {"Specifications", "仕様"},
	"no_catalog":            {"This GPU or model is not in the performance catalog; what is shown comes from submitted runs.", "性能カタログにない GPU／モデルです。表示は投稿された実行結果によるものです。"},
	"best_decode":           {"Best single-stream decode tok/s", "最高の単一ストリーム decode tok/s"},
	"best_peak":             {"Best peak tok/s", "最高のピーク tok/s"},
	"all_runs":              {"All its runs, with filters and paging →", "すべての実行結果（絞り込み・ページ送り）→"},
	"submitters":            {"Submitters", "投稿者一覧"},
	"members":               {"Members", "メンバー"},
	"no_orgs":               {"No organizations yet. An operator creates them with llmbench serve token create --org NAME.", "組織はまだありません。運営者が llmbench serve token create --org NAME で作成します。"},
	"no_reports":            {"No reports yet. Write one, or post it with POST /api/v1/reports.", "レポートはまだありません。このサイトで書くか、POST /api/v1/reports で投稿できます。"},
	"report_new":            {"Write a report", "レポートを書く"},
	"report_new_intro":      {"A report is Markdown. A line holding only [[run:ID]] embeds that run's card. It is published under your API token's name (an operator creates tokens with llmbench serve token create).", "レポートは Markdown で書きます。[[run:ID]] だけの行にはその実行結果のカードが入ります。API トークンの名前で公開されます（トークンは運営者が llmbench serve token create で作成します）。"},
	"report_token":          {"API token", "API トークン"},
	"report_slug":           {"Address (letters, digits, . _ -)", "アドレス（英数字と . _ -）"},
	"report_title":          {"Title", "タイトル"},
	"report_body":           {"Text (Markdown)", "本文（Markdown）"},
	"report_publish":        {"Publish", "公開する"},
	"calc_title":            {"Decode calculator", "Decode calculator"},
	"calc_intro":            {"Predict the speed test matrix from GPU and model specs, next to measured runs of the same GPU and model.", "GPU とモデルの仕様からスピードテストマトリクスを予測し、同じ GPU・モデルの実測結果と並べて表示します。"},
	"calc_unavailable":      {"The calculator is not available in this build: the performance model (internal/perf) is not wired in yet. Measured runs of the GPU and model you pick are shown below.", "このビルドでは計算機を利用できません（性能モデル internal/perf が未接続）。選んだ GPU・モデルの実測結果を下に表示します。"},
	"calc_kv":               {"KV cache dtype", "KV キャッシュの型"},
	"calc_predict":          {"Predict", "予測する"},
	"calc_predicted":        {"Predicted matrix", "予測マトリクス"},
	"calc_measured":         {"Measured runs of this GPU and model", "この GPU・モデルの実測結果"},
	"calc_no_measured":      {"No measured run of this GPU and model yet.", "この GPU・モデルの実測結果はまだありません。"},
	"calc_quant":            {"Quantization (e.g. w4a16-g128, fp8, bf16)", "量子化（例: w4a16-g128, fp8, bf16）"},
	"benchmarks_intro":      {"Runs compare like with like only when they follow the same plan. These are the named plans; a run's profile is derived from its config.", "同じ計画に従った実行どうしでなければ比較できません。以下が名前付きの計画で、実行のプロファイルは設定から判定されます。"},
	"profile_speed-test":    {"The seed page's speed test matrix: contexts 0, 16K, 32K, 56K × concurrency 1–128, prefill at 8K–56K, 30 s per cell, 8,192 output tokens.", "元ページのスピードテストマトリクス：コンテキスト 0, 16K, 32K, 56K × 同時実行 1〜128、prefill 8K〜56K、1セル 30 秒、出力 8,192 トークン。"},
	"profile_quick":         {"llmbench run --quick: a small matrix in about a minute, for trying things out. Not comparable with the speed test.", "llmbench run --quick：約1分で終わる小さなマトリクス。お試し用で、スピードテストとは比較できません。"},
	"profile_custom":        {"Any other plan. Compare such runs only with care.", "その他の計画。比較には注意してください。"},
	"contexts":              {"Contexts", "コンテキスト"},
	"concurrency":           {"Concurrency", "同時実行数"},
	"duration":              {"Time per measurement", "1測定あたりの時間"},
	"not_found":             {"Not found", "見つかりません"},
	"not_found_text":        {"There is nothing at this address.", "このアドレスには何もありません。"},
	"chart_decode":          {"Total tok/s vs concurrency (context 0)", "同時実行数ごとの合計 tok/s（コンテキスト 0）"},
	"chart_prefill":         {"Prefill tok/s vs context", "コンテキストごとの prefill tok/s"},
	"label_emulated":        {"Emulated: these numbers come from llmbench's built-in emulator, not a real server.", "エミュレーション：この数値は実サーバーではなく llmbench 内蔵のエミュレーターによるものです。"},
	"label_predicted":       {"Predicted: these numbers come from the performance model; nothing was measured.", "予測：この数値は性能モデルによるもので、測定値ではありません。"},
	"api_intro":             {"A JSON API, described by an OpenAPI 3.1 document at /api/openapi.json.", "JSON API。仕様は OpenAPI 3.1 ドキュメント /api/openapi.json にあります。"},
	"reports_embed_missing": {"run %s is not on this site", "実行 %s はこのサイトにありません"},
}

// T returns the text key in lang, formatted with args if any: the site's own text
// when messages has it, else the report package's label (the menu entries, run kinds
// and matrix labels the run page's report also shows), so the two never drift apart.
// An unknown key shows as itself, so a missing text is visible rather than blank.
func T(lang, key string, args ...any) string {
	m, ok := messages[key]
	if !ok {
		return report.T(lang, key, args...)
	}
	s := m[0]
	if lang == LangJA {
		s = m[1]
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// requestLang picks the page language: ?lang=, the cookie, then Accept-Language;
// English by default.
func requestLang(r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l == LangEN || l == LangJA {
		return l
	}
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == LangEN || c.Value == LangJA) {
		return c.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		if strings.HasPrefix(tag, "ja") {
			return LangJA
		}
		if strings.HasPrefix(tag, "en") {
			return LangEN
		}
	}
	return LangEN
}

// rememberLang sets the cookie that keeps a language chosen with ?lang= for later
// pages. Only render calls it, so a page sets the cookie once.
func rememberLang(w http.ResponseWriter, r *http.Request) {
	if l := r.URL.Query().Get("lang"); l == LangEN || l == LangJA {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: l, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, HttpOnly: true})
	}
}

// withLang returns the request's URL (path and query) with lang set to l.
func withLang(u *url.URL, l string) string { return withParam(u, "lang", l) }
