package site

import (
	"fmt"
	"net/http"
	"net/url"

	"golang.org/x/text/language"

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
	"site_name":                         {"llmbench", "llmbench"},
	"site_tagline":                      {"Speed test matrices of LLM inference servers", "LLM推論サーバーのスピードテストマトリクス"},
	"nav_start":                         {"Getting started", "はじめに"},
	"nav_calculator":                    {"Decode calculator", "Decode calculator"},
	"nav_orgs":                          {"Organizations", "Organizations"},
	"nav_reports":                       {"Reports", "Reports"},
	"nav_runs":                          {"Matrix runs", "Matrix runs"},
	"nav_docs":                          {"Docs", "ドキュメント"},
	"lang_other":                        {"日本語", "English"},
	"compare":                           {"Compare", "比較"},
	"compare_selected":                  {"Compare selected (2–4)", "選択した実行を比較（2〜4件）"},
	"compare_need":                      {"Pick two to four runs to compare (tick them in Matrix runs).", "比較する実行を2〜4件選んでください（「マトリクスの実行結果」でチェック）。"},
	"compare_dropped":                   {"You ticked %d runs; a comparison shows at most %d side by side, so these are the first %[2]d. Left out: %s.", "%d 件の実行が選ばれましたが、並べて比較できるのは %d 件までのため、最初の %[2]d 件を比較しています。除いた実行：%s"},
	"compare_baseline":                  {"Differences are against the first run.", "差分は最初の実行に対する値です。"},
	"metric":                            {"Rank by", "ランキング指標"},
	"metric_decode":                     {"Single-stream decode tok/s (context 0)", "単一ストリーム デコード tok/s（コンテキスト 0）"},
	"metric_peak":                       {"Peak total tok/s", "ピーク合計 tok/s"},
	"metric_prefill_32k":                {"Prefill tok/s at 32K", "32K での プリフィル tok/s"},
	"metric_per_gb":                     {"Peak tok/s per GB of VRAM", "VRAM 1 GB あたりのピーク tok/s"},
	"filter_model":                      {"Model", "モデル"},
	"filter_gpu":                        {"GPU", "GPU"},
	"filter_engine":                     {"Engine", "エンジン"},
	"filter_quant":                      {"Quantization", "量子化"},
	"filter_profile":                    {"Benchmark profile", "ベンチマークプロファイル"},
	"filter_any":                        {"Any", "すべて"},
	"filter_apply":                      {"Apply", "適用"},
	"include_all":                       {"Include emulated and predicted runs", "エミュレーション・予測の結果も含める"},
	"rank":                              {"#", "順位"},
	"run":                               {"Run", "実行"},
	"submitter":                         {"Submitted by", "投稿アカウント"},
	"submitted":                         {"Submitted", "投稿日"},
	"kind":                              {"Kind", "種別"},
	"no_runs":                           {"No runs yet. Submit one: see Getting started.", "まだ実行結果がありません。「はじめに」を参照して投稿してください。"},
	"next":                              {"Next →", "次へ →"},
	"prev":                              {"← Previous", "← 前へ"},
	"runs_count":                        {"%s runs", "%s 件"},
	"leaderboard_note":                  {"Only measured runs are ranked unless you include emulated and predicted ones. Runs without the chosen figure are left out.", "エミュレーション・予測の結果は、含めると指定しない限りランキングに入りません。選んだ指標の値がない実行は表示されません。"},
	"raw_json":                          {"Run document (JSON)", "実行ドキュメント（JSON）"},
	"summary":                           {"Summary", "概要"},
	"profile":                           {"Profile", "プロファイル"},
	"prefill":                           {"Prefill", "プリフィル"},
	"prefill_sub":                       {"prompt tok/s by context length", "コンテキスト長ごとのプロンプト tok/s"},
	"over_capacity":                     {"Over capacity", "容量超過"},
	"over_capacity_note":                {"Over capacity: not run because this many requests at this context would exceed the server's KV cache.", "容量超過：このコンテキストでこの数のリクエストを送るとサーバーの KV キャッシュを超えるため、実行していません。"},
	"runs":                              {"Runs", "実行結果"},
	"specs":                             {"Specifications", "仕様"},
	"no_catalog":                        {"This GPU or model is not in the performance catalog; what is shown comes from submitted runs.", "性能カタログにない GPU／モデルです。表示は投稿された実行結果によるものです。"},
	"best_decode":                       {"Best single-stream decode tok/s", "最高の単一ストリーム デコード tok/s"},
	"rate_runs":                         {"Open-loop runs", "オープンループの実行"},
	"group_rate_only":                   {"Every run here is open-loop (requests at set rates), so none has the concurrency matrix's decode figures. Their goodput and latencies are on their pages, side by side in compare, and on the leaderboard ranked by a rate cell under the conditions it was measured under.", "ここにある実行はすべてオープンループ（決めたレートでリクエストを送る測定）なので、並列数マトリクスのデコード値はありません。グッドプットとレイテンシは各実行のページ、比較ページ、そして測定条件ごとにレートのセルで並べたリーダーボードにあります。"},
	"best_peak":                         {"Best peak tok/s", "最高のピーク tok/s"},
	"best_run_of":                       {"%s on %s", "%s（%s）"},
	"all_runs":                          {"All its runs, with filters and paging →", "すべての実行結果（絞り込み・ページ送り）→"},
	"submitters":                        {"Submitters (site accounts)", "投稿アカウント一覧"},
	"members":                           {"Members", "メンバー"},
	"no_orgs":                           {"No organizations yet. An operator creates them with llmbench serve token create --org NAME.", "組織はまだありません。運営者が llmbench serve token create --org NAME で作成します。"},
	"no_reports":                        {"No reports yet. Write one, or post it with POST /api/v1/reports.", "レポートはまだありません。このサイトで書くか、POST /api/v1/reports で投稿できます。"},
	"report_new":                        {"Write a report", "レポートを書く"},
	"report_new_intro":                  {"A report is Markdown. A line holding only [[run:ID]] embeds that run's card. It is published under your API token's name (an operator creates tokens with llmbench serve token create).", "レポートは Markdown で書きます。[[run:ID]] だけの行にはその実行結果のカードが入ります。API トークンの名前で公開されます（トークンは運営者が llmbench serve token create で作成します）。"},
	"report_token":                      {"API token", "API トークン"},
	"report_slug":                       {"Address (letters, digits, . _ -)", "アドレス（英数字と . _ -）"},
	"report_title":                      {"Title", "タイトル"},
	"report_body":                       {"Text (Markdown)", "本文（Markdown）"},
	"report_body_md":                    {"Text (Markdown)", "本文（Markdown）"},
	"form_token_401":                    {"unknown API token (an operator creates one with llmbench serve token create)", "不明な API トークンです（運営者が llmbench serve token create で作成します）"},
	"form_token_429":                    {"too many attempts: wait before trying again (the page says how long in Retry-After)", "試行が多すぎます。しばらく待ってから再度お試しください"},
	"form_slug_400":                     {"the address must be 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit", "アドレスは英数字と . _ - の 1〜128 文字で、英数字で始めてください"},
	"form_slug_409":                     {"a report with this address exists: choose another", "このアドレスのレポートはすでにあります。別のアドレスにしてください"},
	"form_title_400":                    {"a title is required, at most 200 characters of text", "タイトルは必須で、200 文字以内のテキストです"},
	"form_body_md_400":                  {"the text is required, at most 256 KiB", "本文は必須で、256 KiB 以内です"},
	"form__503":                         {"the site's disk is full, so nothing was stored; try again later", "サイトのディスクが一杯のため保存できませんでした。しばらくしてから再度お試しください"},
	"form_other":                        {"%s", "投稿できませんでした（%s）"},
	"report_publish":                    {"Publish", "公開する"},
	"calc_title":                        {"Decode calculator", "デコード計算機"},
	"calc_intro":                        {"Predict the speed test matrix from GPU and model specs, next to measured runs of the same GPU and model.", "GPU とモデルの仕様からスピードテストマトリクスを予測し、同じ GPU・モデルの実測結果と並べて表示します。"},
	"calc_unavailable":                  {"The calculator is not available in this build: the performance model (internal/perf) is not wired in yet. Measured runs of the GPU and model you pick are shown below.", "このビルドでは計算機を利用できません（性能モデル internal/perf が未接続）。選んだ GPU・モデルの実測結果を下に表示します。"},
	"calc_kv":                           {"KV cache dtype", "KV キャッシュの型"},
	"calc_what":                         {"What to predict", "予測する構成"},
	"calc_knobs":                        {"Engine settings (llmbench calc's flags)", "エンジン設定（llmbench calc のフラグ）"},
	"calc_gpus":                         {"GPUs (tensor parallel)", "GPU 数（テンソル並列）"},
	"calc_engine":                       {"Engine", "エンジン"},
	"calc_engine_default":               {"vllm (ollama for an Ollama tag such as qwen3:32b)", "vllm（qwen3:32b のような Ollama のタグなら ollama）"},
	"calc_max_model_len":                {"Max model length (tokens)", "最大モデル長（トークン）"},
	"calc_default_context":              {"the model's context", "モデルのコンテキスト長"},
	"calc_util":                         {"GPU memory utilization", "GPU メモリ使用率"},
	"calc_max_num_seqs":                 {"Max sequences (max-num-seqs)", "最大シーケンス数（max-num-seqs）"},
	"calc_max_output":                   {"Max output tokens", "最大出力トークン数"},
	"calc_no_prefix":                    {"Prefix caching off", "プレフィックスキャッシュを無効にする"},
	"calc_memory":                       {"Memory per GPU", "GPU 1 枚あたりのメモリ"},
	"calc_memory_line":                  {"%s × %s GiB the GPU reports = %s GiB for the engine: weights %s GiB, runtime reserve %s GiB, KV cache %s GiB.", "%s × GPU が報告する %s GiB = エンジンが使える %s GiB：重み %s GiB、ランタイム予約 %s GiB、KV キャッシュ %s GiB。"},
	"calc_kv_tokens":                    {"KV cache (tokens)", "KV キャッシュ（トークン）"},
	"calc_why":                          {"Why cells are over capacity", "容量超過のセルがある理由"},
	"calc_would_fit":                    {"What would fit", "収まる設定"},
	"why_rule":                          {"%d of %d cells are over capacity: a cell needs concurrency × (context + max output) tokens of KV cache, and this setup holds %s (max output %s tokens).", "%d / %d セルが容量超過です。セルには 同時実行数 ×（コンテキスト + 最大出力）トークンの KV キャッシュが必要で、この構成では %s トークンです（最大出力 %s トークン）。"},
	"why_max_model_len":                 {"The KV cache (%s tokens) holds less than one request at the max model length (%s): vLLM refuses to start with this setting. Lower the max model length.", "KV キャッシュ（%s トークン）が最大モデル長（%s）のリクエスト 1 件分に足りません。vLLM はこの設定では起動しません。最大モデル長を下げてください。"},
	"why_longer":                        {"Context %s with max output needs %s tokens, more than the max model length (%s).", "コンテキスト %s と最大出力で %s トークン必要で、最大モデル長（%s）を超えます。"},
	"advice_found":                      {"%s × 1 needs %s tokens; it fits (%s tokens) with", "%s × 1 には %s トークン必要です。次の設定で収まります（%s トークン）"},
	"advice_none":                       {"%s × 1 needs %s tokens; none of the settings tried fits it (more GPUs, a smaller weight format or a shorter output).", "%s × 1 には %s トークン必要ですが、試した設定ではどれも収まりません（GPU を増やす、より小さい量子化、出力を短くする）。"},
	"advice_try":                        {"predict with these settings", "この設定で予測する"},
	"calc_as_json":                      {"The predicted run document (JSON)", "予測された実行ドキュメント（JSON）"},
	"calc_notes":                        {"The calculator's notes (in English)", "計算機の注記（英語）"},
	"calc_field_":                       {"the setup", "構成"},
	"calc_field_gpu":                    {"GPU", "GPU"},
	"calc_field_model":                  {"model", "モデル"},
	"calc_field_quant":                  {"weight format", "量子化"},
	"calc_field_kv_dtype":               {"KV cache dtype", "KV キャッシュの型"},
	"calc_field_engine":                 {"engine", "エンジン"},
	"calc_field_gpus":                   {"GPUs", "GPU 数"},
	"calc_field_max_model_len":          {"max model length", "最大モデル長"},
	"calc_field_gpu_memory_utilization": {"GPU memory utilization", "GPU メモリ使用率"},
	"calc_field_max_num_seqs":           {"max sequences", "最大シーケンス数"},
	"calc_field_max_output":             {"max output tokens", "最大出力トークン数"},
	"calc_field_prefix_caching":         {"prefix caching", "プレフィックスキャッシュ"},
	"calc_err_unknown":                  {"The calculator does not know the %s %q.", "計算機は %s「%s」を知りません。"},
	"calc_err_unknown_closest":          {"The calculator does not know the %s %q. Did you mean: %s?", "計算機は %s「%s」を知りません。候補：%s"},
	"calc_err_no_room":                  {"The weights (%s GiB per GPU) and the runtime reserve (%s GiB) do not fit in %s%% of %s GiB (%s GiB): there is no room for a KV cache. Use more GPUs, a smaller weight format or a higher memory utilization.", "重み（GPU 1 枚あたり %s GiB）とランタイム予約（%s GiB）が %s%% × %s GiB（%s GiB）に収まらず、KV キャッシュの余地がありません。GPU を増やすか、より小さい量子化か、メモリ使用率を上げてください。"},
	"calc_err_field":                    {"The %s cannot be used: %s", "%s が使えません：%s"},
	"calc_err_other":                    {"The calculator could not predict this setup: %s", "計算機はこの構成を予測できませんでした：%s"},
	"calc_predict":                      {"Predict", "予測する"},
	"calc_predicted":                    {"Predicted matrix", "予測マトリクス"},
	"calc_energy":                       {"Energy per token", "トークンあたりのエネルギー"},
	"calc_estimate":                     {"estimate", "推定"},
	"calc_energy_sub":                   {"Joules per output token in each cell, from the GPU's board power and the predicted utilization; beneath, the power and the cost per million tokens at the catalog's price. Nothing here was measured.", "各セルの出力トークンあたりのジュール。GPU のボード電力と予測利用率から求めた値です。下段は電力と、価格カタログの価格での 100 万トークンあたりのコスト。いずれも測定値ではありません。"},
	"calc_measured":                     {"Measured runs of this GPU and model", "この GPU・モデルの実測結果"},
	"calc_no_measured":                  {"No measured run of this GPU and model yet.", "この GPU・モデルの実測結果はまだありません。"},
	"calc_quant":                        {"Quantization (e.g. w4a16-g128, fp8, bf16)", "量子化（例: w4a16-g128, fp8, bf16）"},
	"benchmarks_intro":                  {"Runs compare like with like only when they follow the same plan. These are the named plans; a run's profile is derived from its config.", "同じ計画に従った実行どうしでなければ比較できません。以下が名前付きの計画で、実行のプロファイルは設定から判定されます。"},
	"profile_speed-test":                {"The seed page's speed test matrix: contexts 0, 16K, 32K, 56K × concurrency 1–128, prefill at 8K–56K, 30 s per cell, 8,192 output tokens.", "元ページのスピードテストマトリクス：コンテキスト 0, 16K, 32K, 56K × 同時実行 1〜128、プリフィル 8K〜56K、1セル 30 秒、出力 8,192 トークン。"},
	"profile_quick":                     {"llmbench run --quick: a small matrix in about a minute, for trying things out. Not comparable with the speed test.", "llmbench run --quick：約1分で終わる小さなマトリクス。お試し用で、スピードテストとは比較できません。"},
	"profile_custom":                    {"Any other plan. Compare such runs only with care.", "その他の計画。比較には注意してください。"},
	"contexts":                          {"Contexts", "コンテキスト"},
	"concurrency":                       {"Concurrency", "同時実行数"},
	"duration":                          {"Time per measurement", "1測定あたりの時間"},
	"not_found":                         {"Not found", "見つかりません"},
	"not_found_text":                    {"There is nothing at this address.", "このアドレスには何もありません。"},
	"chart_decode":                      {"Total tok/s vs concurrency (context 0)", "同時実行数ごとの合計 tok/s（コンテキスト 0）"},
	"chart_prefill":                     {"Prefill tok/s vs context", "コンテキストごとの プリフィル tok/s"},
	"label_emulated":                    {"Emulated: these numbers come from llmbench's built-in emulator, not a real server.", "エミュレーション：この数値は実サーバーではなく llmbench 内蔵のエミュレーターによるものです。"},
	"label_predicted":                   {"Predicted: these numbers come from the performance model; nothing was measured.", "予測：この数値は性能モデルによるもので、測定値ではありません。"},
	"api_intro":                         {"A JSON API, described by an OpenAPI 3.1 document at /api/openapi.json.", "JSON API。仕様は OpenAPI 3.1 ドキュメント /api/openapi.json にあります。"},
	"reports_embed_missing":             {"run %s is not on this site", "実行 %s はこのサイトにありません"},
	"api_method":                        {"Method", "メソッド"},
	"api_path":                          {"Path", "パス"},
	"heading_calculator":                {"Decode calculator", "デコード計算機"},
	"heading_reports":                   {"Reports", "レポート"},
	"heading_orgs":                      {"Organizations", "組織"},
	"heading_runs":                      {"Matrix runs", "マトリクスの実行結果"},
	"nav_families":                      {"Model families", "モデルファミリー"},
	"filter_family":                     {"Model family", "モデルファミリー"},
	"filter_size":                       {"Model size", "モデルサイズ"},
	"size_0-10":                         {"under 10B", "10B 未満"},
	"size_10-20":                        {"10–20B", "10〜20B"},
	"size_20-40":                        {"20–40B", "20〜40B"},
	"size_40-100":                       {"40–100B", "40〜100B"},
	"size_100-":                         {"100B and more", "100B 以上"},
	"family_intro":                      {"A family gathers a base model's runs whatever form it was served in: quantizations, repackagings and served names (the publisher and the format words are dropped from the model name).", "ファミリーは、量子化・再パッケージ・サーバー上の名前の違いを問わず、同じベースモデルの実行結果をまとめたものです（モデル名から公開者と形式を表す語を除いています）。"},
	"family_models":                     {"Model names in this family", "このファミリーのモデル名"},
	"rank_by_cell":                      {"Rank by a cell of the matrix", "マトリクスのセルでランキング"},
	"metric_total_tok_s":                {"Total tok/s", "合計 tok/s"},
	"metric_per_request_tok_s":          {"Per-request tok/s", "リクエストあたり tok/s"},
	"metric_ttft_ms":                    {"TTFT (decode cell)", "TTFT（デコードセル）"},
	"metric_prompt_tok_s":               {"Prefill tok/s", "プリフィル tok/s"},
	"metric_tok_s_per_w":                {"Tok/s per watt", "1 W あたりの tok/s"},
	"metric_usd_per_mtok":               {"USD per million tokens", "100 万トークンあたりの USD"},
	"metric_peak_tok_s":                 {"Peak total tok/s", "ピーク合計 tok/s"},
	"metric_peak_tok_s_per_gb":          {"Peak tok/s per GB of VRAM", "VRAM 1 GB あたりのピーク tok/s"},
	"level_concurrency":                 {"Concurrency", "同時実行数"},
	"level_rate":                        {"Request rate (per second)", "リクエストレート（毎秒）"},
	"cell_decode":                       {"%s at %s × %s", "%s（%s × %s）"},
	"cell_rate":                         {"%s at %s input tokens, %s req/s", "%s（入力 %s トークン、毎秒 %s リクエスト）"},
	"cell_prefill":                      {"%s at %s", "%s（%s）"},
	"metrics_matrix":                    {"Matrix cells", "マトリクスのセル"},
	"metrics_rate":                      {"Request-rate cells (open loop)", "リクエストレートのセル（オープンループ）"},
	"metric_goodput_rps":                {"Goodput (requests/s meeting the SLO)", "グッドプット（SLO を満たしたリクエスト/秒）"},
	"metric_slo_met_ratio":              {"Share of requests meeting the SLO", "SLO を満たしたリクエストの割合"},
	"metric_achieved_rps":               {"Achieved requests/s", "達成リクエスト/秒"},
	"metric_rate_ttft_p50_ms":           {"TTFT p50 (rate cell)", "TTFT p50（レートセル）"},
	"metric_rate_ttft_p90_ms":           {"TTFT p90 (rate cell)", "TTFT p90（レートセル）"},
	"metric_rate_tpot_p50_ms":           {"TPOT p50 (rate cell)", "TPOT p50（レートセル）"},
	"metric_max_rate_rps":               {"Highest rate meeting the SLO (--find-max-rate)", "SLO を満たす最高レート（--find-max-rate）"},
	"cell_rate_inf":                     {"%s at %s input tokens, every request at once (rate inf)", "%s（入力 %s トークン、全リクエスト同時送信：rate inf）"},
	"cell_rate_run":                     {"%s at %s input tokens", "%s（入力 %s トークン）"},
	"cell_short_rate":                   {"%s in, %s req/s", "入力 %s・毎秒 %s"},
	"cell_short_inf":                    {"%s in, all at once", "入力 %s・一斉送信"},
	"cell_short_run":                    {"%s in", "入力 %s"},
	"cond_output":                       {"%s output tokens", "出力 %s トークン"},
	"cond_len_dist":                     {"lengths %s", "長さの分布 %s"},
	"cond_requests":                     {"%s requests a cell", "1 セルあたり %s リクエスト"},
	"cond_duration":                     {"%s s a cell", "1 セルあたり %s 秒"},
	"requests_per_cell":                 {"Requests per cell (--requests)", "1 セルあたりのリクエスト数（--requests）"},
	"duration_per_cell":                 {"Seconds per cell (--duration)", "1 セルあたりの秒数（--duration）"},
	"cond_slo":                          {"SLO: %s", "SLO：%s"},
	"cond_target":                       {"%s of requests must meet it", "リクエストの %s が満たすこと"},
	"input_len":                         {"Input length (tokens)", "入力長（トークン）"},
	"output_len":                        {"Output length (tokens)", "出力長（トークン）"},
	"slo":                               {"SLO (latency targets)", "SLO（レイテンシ目標）"},
	"slo_target":                        {"Share that must meet it", "満たすべき割合"},
	"workload_more":                     {"More of the workload", "ワークロードの詳細"},
	"arrival":                           {"Arrivals", "到着パターン"},
	"len_dist":                          {"Length spread", "長さの分布"},
	"max_concurrency":                   {"Client cap on requests in flight", "同時送信の上限（クライアント）"},
	"prefix_share":                      {"Shared prefix (share of the prompt)", "共通プレフィックス（プロンプトに占める割合）"},
	"conds_heading":                     {"Measured under", "測定条件"},
	"conds_intro":                       {"Open-loop cells rank only beside cells measured under the same conditions: the input and output lengths, the arrival pattern, the length spread, a client cap on requests in flight, a shared prefix, the length of a cell (requests or seconds: a short cell reads a lower achieved rate and goodput, its drain inside) and, for goodput, the SLO. These are the conditions runs on this site were measured under; each links to the cell most of them have.", "オープンループのセルは、同じ条件で測定されたセルとだけ順位を比べます。条件とは入力長と出力長、到着パターン、長さの分布、クライアント側の同時送信上限、共通プレフィックス、セルの長さ（リクエスト数または秒数。短いセルはドレインを含むため達成レートとグッドプットが低く出ます）、そしてグッドプットでは SLO です。以下はこのサイトの実行結果が測定された条件の一覧で、それぞれ最も多くの実行が持つセルにリンクしています。"},
	"cell_saturated":                    {"saturated", "飽和"},
	"cond_run":                          {"1 run at %s", "1 件（%s）"},
	"cond_max_conc":                     {"at most %s in flight (client cap)", "同時送信は最大 %s（クライアント側の上限）"},
	"rank_by_rate_cell":                 {"Rank by an open-loop cell", "オープンループのセルでランキング"},
	"cond_runs":                         {"%s runs at %s", "%s 件（%s）"},
	"no_rate_runs":                      {"No open-loop run has this metric yet. Measure one with llmbench run --rate … --slo … and submit it.", "この指標を持つオープンループの実行結果はまだありません。llmbench run --rate … --slo … で測定して投稿してください。"},
	"need_slo":                          {"%s is judged against an SLO, and runs judged against other targets are not comparable: pick the conditions to rank under below, or give the SLO (e.g. ttft:500ms,tpot:50ms).", "%s は SLO に照らして判定されるため、別の目標で判定された実行とは比べられません。下の測定条件から選ぶか、SLO を指定してください（例：ttft:500ms,tpot:50ms）。"},
	"measured_under":                    {"Measured under:", "測定条件："},
	"picker_intro_rate_run":             {"Pick an input length; each number is how many runs' searches found a highest rate under these conditions.", "入力長を選んでください。数字は、この条件で探索が最高レートを見つけた実行結果の数です。"},
	"picker_intro_rate":                 {"Pick a cell: rows are input length, columns are request rates (inf: every request at once); each number is how many runs have that cell under these conditions.", "セルを選んでください。行は入力長、列はリクエストレート（inf は全リクエスト同時送信）で、数字はこの条件でそのセルを持つ実行結果の数です。"},
	"glance_rate":                       {"The run's row at %s input tokens (by request rate)", "入力 %s トークンでの行（リクエストレートごと）"},
	"rate_note":                         {"A saturated cell (its queue grew) ranks too: its run's page shows the evidence. A search's highest rate ranks only when the search found a failing rate above it.", "飽和したセル（キューが伸びたセル）も順位に入ります。その根拠は実行結果のページにあります。探索の最高レートは、その上に不合格のレートが見つかった場合だけ順位に入ります。"},
	"filter_mode":                       {"Run type", "実行の種類"},
	"mode_matrix":                       {"Matrix", "マトリクス"},
	"mode_rate":                         {"Request rates (open loop)", "リクエストレート（オープンループ）"},
	"mode_rate_badge":                   {"Request rates", "リクエストレート"},
	"compare_rate_sub":                  {"Each run's cells at each request rate, side by side: requests/s achieved, TTFT and TPOT percentiles (ms) and, with an SLO, goodput. Latencies are timed from each request's scheduled send.", "各実行のリクエストレートごとのセルを並べています。達成リクエスト/秒、TTFT と TPOT のパーセンタイル（ミリ秒）、SLO があればグッドプット。レイテンシは各リクエストの予定送信時刻から計測しています。"},
	"compare_rate_matrix":               {"Not in this table: %s — a matrix run measures fixed numbers of simultaneous requests, not requests arriving at a rate, so its cells are not comparable with rate cells. The comparison above shows every run.", "この表に含めていない実行：%s。マトリクスの実行は一定数の同時リクエストを測るもので、一定のレートで到着するリクエストを測るものではないため、レートのセルとは比べられません。上の比較にはすべての実行が入っています。"},
	"compare_rate_matrix_none":          {"No request-rate comparison: only one of these runs measured request rates, and %s is a matrix run — it measures fixed numbers of simultaneous requests, not requests arriving at a rate, so its cells are not comparable with rate cells. The comparison above shows every run.", "リクエストレートの比較はありません。レートを測った実行は 1 件だけで、%s はマトリクスの実行です。一定数の同時リクエストを測るもので、一定のレートで到着するリクエストを測るものではないため、レートのセルとは比べられません。上の比較にはすべての実行が入っています。"},
	"compare_rate_too_many":             {"These runs together measured %d request rates; the table shows at most %d. Compare fewer runs.", "これらの実行を合わせると %d 種類のリクエストレートがあります。表に出せるのは %d 種類までです。"},
	"compare_rate_workload":             {"Run %s was measured under another workload than run 1 (input or output length, arrivals, length spread, client cap, shared prefix or cell length): its figures are not like for like.", "実行 %s は実行 1 と異なるワークロード（入力長・出力長、到着パターン、長さの分布、クライアントの上限、共通プレフィックス、セルの長さ）で測定されています。数値は同条件の比較ではありません。"},
	"compare_rate_slo":                  {"Run %s was judged against another SLO than run 1: its goodput is not comparable (its latencies are).", "実行 %s は実行 1 と異なる SLO で判定されています。グッドプットは比べられません（レイテンシは比べられます）。"},
	"compare_rate_no_plan":              {"no rate plan in the document", "ドキュメントにレートの計画がありません"},
	"compare_rate_no_matrix":            {"A request-rate run: no matrix; its cells are in the request-rate table above.", "リクエストレートの実行です。マトリクスはなく、セルは上のリクエストレートの表にあります。"},
	"cond_input":                        {"%s input tokens", "入力 %s トークン"},
	"chart_rate_compare":                {"TTFT p50 vs achieved requests/s: where each server stops keeping up", "達成リクエスト/秒と TTFT p50：各サーバーが追いつかなくなる点"},
	"rate_point":                        {"%s · rate %s: %s req/s, TTFT p50 %s", "%s · レート %s：%s req/秒、TTFT p50 %s"},
	"lower_better":                      {"lower is better", "小さいほど良い"},
	"picker_intro":                      {"Pick a cell: rows are context length, columns are simultaneous requests; each number is how many runs have that cell.", "セルを選んでください。行はコンテキスト長、列は同時リクエスト数で、数字はそのセルを持つ実行結果の数です。"},
	"glance_row":                        {"The run's row at %s (by concurrency)", "%s での行（同時実行数ごと）"},
	"glance_prefill":                    {"Prefill by context", "コンテキストごとのプリフィル"},
	"glance_decode":                     {"Total tok/s at context 0 (by concurrency)", "コンテキスト 0 の合計 tok/s（同時実行数ごと）"},
	"no_runs_cell":                      {"No run has this cell with these filters. Pick another cell or widen the filters.", "この条件でこのセルを持つ実行結果はありません。別のセルを選ぶか、絞り込みを広げてください。"},
	"chart_best_gpu":                    {"Best GPU — %s", "GPU ごとの最高値 — %s"},
	"chart_best_model":                  {"Best model — %s", "モデルごとの最高値 — %s"},
	"best_bar":                          {"%s: %s %s (run %s; %d runs have this cell)", "%s：%s %s（実行 %s、このセルを持つ実行 %d 件）"},
	"chart_tradeoff":                    {"Per-request vs total tok/s (context %s)", "リクエストあたり tok/s と合計 tok/s（コンテキスト %s）"},
	"tradeoff":                          {"The trade-off", "トレードオフ"},
	"tradeoff_sub":                      {"Each line is a run (its best measured runs, by peak total tok/s), each point a cell: as more requests share the server, the total rises and each request slows. The bars compare the best run of each at the chosen cell.", "各線は実行結果（ピーク合計 tok/s の上位の実測結果）、各点はセルです。同時リクエストが増えると合計は増え、1 リクエストあたりは遅くなります。棒グラフは選んだセルでの最高値を比べます。"},
	"tradeoff_point":                    {"%s · concurrency %s: %s total, %s per request", "%s · 同時 %s：合計 %s、1 リクエストあたり %s"},
	"compare_too_wide":                  {"These runs together have %d contexts and %d concurrency levels; a comparison shows at most %d of each. Compare runs with fewer distinct values.", "これらの実行結果を合わせるとコンテキストが %d 種類、同時実行数が %d 種類あります。比較できるのはそれぞれ %d 種類までです。"},
	"submitted_by":                      {"Submitted by (site account)", "投稿アカウント（サイトのアカウント）"},
	"document_author":                   {"Author (as the document says)", "作成者（ドキュメントの記載）"},
	"person_submitter":                  {"Submitter (site account)", "投稿アカウント（サイトのアカウント）"},
	"person_author":                     {"Author named in run documents", "実行ドキュメントに記載された作成者"},
	"person_submitter_note":             {"A site account: the operator gave it an API token, and every run and report below was sent with it.", "サイトのアカウントです。運営者が API トークンを発行し、以下の実行結果とレポートはそのトークンで送られました。"},
	"person_author_note":                {"A name run documents give as their author (their \"submitter\" field). Anyone can type any name there; the site does not check it. Each run's page says which account submitted it.", "実行ドキュメントが作成者として記載している名前（\"submitter\" 欄）です。誰でも任意の名前を書けるため、サイトは確認していません。各実行結果のページに、どのアカウントが投稿したかが表示されます。"},
	"person_runs_submitted":             {"Runs submitted", "投稿した実行結果"},
	"person_runs_authored":              {"Runs whose document names this author", "この作成者が記載された実行結果"},
	"person_no_reports":                 {"No reports.", "レポートはありません。"},
	"authors":                           {"Authors named in run documents", "実行ドキュメントに記載された作成者"},
	"speed_test_matrix":                 {"Speed test matrix", "スピードテストマトリクス"},
	"vs_title":                          {"Measured against predicted", "実測と予測の比較"},
	"vs_intro":                          {"What the decode calculator predicts for this run's setup (GPU, model, format, KV cache, max model length, max sequences, memory share, plan), cell by cell, and its error against the measurement. The calculator's efficiency factors are fitted to published measurements: for a run among them the comparison is in-sample.", "この実行の構成（GPU・モデル・量子化・KV キャッシュ・最大モデル長・最大シーケンス数・メモリ使用率・計画）について計算機が予測した値と、実測に対する誤差をセルごとに示します。計算機の効率係数は公開された測定値に合わせてあるため、その測定に含まれる実行では比較はサンプル内です。"},
	"vs_open_calc":                      {"Open in the calculator →", "計算機で開く →"},
	"vs_calc_refused":                   {"The calculator's form cannot open this setup: %s %s.", "計算機のフォームではこの構成を開けません（%s：%s）。"},
	"vs_assumed":                        {"The document does not say, so the calculator assumed", "ドキュメントに記載がないため、計算機は次を仮定しました"},
	"assumed_quant":                     {"bf16 weights", "bf16 の重み"},
	"assumed_kv":                        {"an fp16 KV cache", "fp16 の KV キャッシュ"},
	"assumed_util":                      {"90% of GPU memory", "GPU メモリの 90%"},
	"vs_cannot":                         {"The calculator cannot predict this setup", "計算機はこの構成を予測できません"},
	"vs_median":                         {"Median error", "誤差の中央値"},
	"vs_cells":                          {"Cells compared", "比較したセル数"},
	"vs_kv":                             {"KV cache, predicted / reported (tokens)", "KV キャッシュ 予測 / 報告（トークン）"},
	"vs_measured":                       {"Measured tok/s", "実測 tok/s"},
	"vs_predicted":                      {"Predicted tok/s", "予測 tok/s"},
	"vs_error":                          {"Error", "誤差"},
	"vs_matrix_sub":                     {"Each cell: measured total tok/s, the prediction below it, and the prediction's error relative to the measurement.", "各セル：実測の合計 tok/s、その下に予測値、実測に対する予測の誤差。"},
	"predicted_short":                   {"predicted %s", "予測 %s"},
	"predicted_over":                    {"predicted over capacity", "予測では容量超過"},
	"bad_request":                       {"This address cannot be read", "このアドレスは読み取れません"},
	"bad_request_text":                  {"A part of the address is not text the site can use (it is too long, or not UTF-8, or holds a NUL character). Nothing was looked up.", "アドレスの一部がサイトで扱えない文字列です（長すぎる、UTF-8 でない、または NUL 文字を含む）。何も検索していません。"},
	"err_auth_failures":                 {"too many failed authentications from this address; try again later", "このアドレスからの認証失敗が多すぎます。しばらくしてから再度お試しください"},
	"err_form_size":                     {"the form is larger than a report can be (at most %d bytes)", "フォームがレポートの上限（%d バイト）を超えています"},
	"err_busy":                          {"the site is busy reading other submissions; try again shortly", "ほかの投稿を処理中です。少し待ってから再度お試しください"},
	"err_form_timeout":                  {"the form did not arrive within %g s; send it again", "フォームが %g 秒以内に届きませんでした。もう一度送信してください"},
	"report_by":                         {"by %s", "投稿：%s"},
	"spec_catalog_name":                 {"Catalog name", "カタログ名"},
	"spec_vendor":                       {"Vendor", "メーカー"},
	"spec_vram":                         {"VRAM", "VRAM"},
	"spec_bandwidth":                    {"Memory bandwidth", "メモリ帯域幅"},
	"spec_fp16":                         {"FP16 tensor", "FP16 テンソル性能"},
	"spec_fp8":                          {"FP8 tensor", "FP8 テンソル性能"},
	"spec_int8":                         {"INT8 tensor", "INT8 テンソル性能"},
	"spec_link":                         {"GPU link", "GPU 間接続"},
	"spec_source":                       {"Source", "出典"},
	"spec_hf":                           {"Hugging Face", "Hugging Face"},
	"spec_params":                       {"Parameters", "パラメータ数"},
	"spec_active_params":                {"Active parameters", "アクティブパラメータ数"},
	"spec_layers":                       {"Layers", "層数"},
	"spec_hidden":                       {"Hidden size", "隠れ層の次元"},
	"spec_heads":                        {"Attention heads / KV heads", "アテンションヘッド / KV ヘッド"},
	"spec_attention":                    {"Attention", "アテンション"},
	"spec_attention_full":               {"full", "フルアテンション"},
	"spec_attention_linear":             {"linear", "線形アテンション"},
	"spec_context":                      {"Context length", "コンテキスト長"},
	"spec_experts":                      {"Experts (per token)", "エキスパート数（トークンあたり）"},
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
	return acceptedLang(r.Header.Get("Accept-Language"))
}

// pageLangs are the languages pages are written in, the default first.
var pageLangs = language.NewMatcher([]language.Tag{language.English, language.Japanese})

// acceptedLang is the page language an Accept-Language header prefers, by its
// quality values (RFC 9110: "en;q=0.1, ja" prefers Japanese, "ja;q=0" refuses it);
// English where it names neither or cannot be read.
func acceptedLang(header string) string {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return LangEN
	}
	_, i, conf := pageLangs.Match(tags...)
	if conf == language.No || i != 1 {
		return LangEN
	}
	return LangJA
}

// rememberLang sets the cookie that keeps a language chosen with ?lang= for later
// pages. Only render calls it, so a page sets the cookie once.
func rememberLang(w http.ResponseWriter, r *http.Request) {
	if l := r.URL.Query().Get("lang"); l == LangEN || l == LangJA {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: l, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, HttpOnly: true})
	}
}

// langCookieOnly says whether every cookie an answer to r sets is the language
// cookie that r's own ?lang= asks for (rememberLang): an answer that sets it may be
// kept for other readers of the same URL, since it is theirs too. Without this, every
// page reached through a link or form that carries ?lang= — all of them after a
// switch — was computed again for each reader.
func langCookieOnly(h http.Header, r *http.Request) bool {
	for _, line := range h.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil || c.Name != langCookie || c.Value != r.URL.Query().Get("lang") {
			return false
		}
	}
	return true
}

// withLang returns the request's URL (path and query) with lang set to l.
func withLang(u *url.URL, l string) string { return withParam(u, "lang", l) }
