package site

import (
	"regexp"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Some of a run document's text is written by llmbench itself, in English, one of a
// few sentences with its numbers: a rate cell's saturation evidence
// (bench.saturationEvidence), why a prediction has no telemetry and how its energy was
// estimated (perf.EstimateEnergy). Pages in another language say the sentences they
// know in theirs, numbers kept — in the site's own views, and in the copy of the run
// the report body is rendered from; one they do not know (a later release's, or a
// submitter's own) stays as written.

// docMessages are those sentences: the English exactly as llmbench writes it, with %s
// for each part that varies, and the Japanese.
var docMessages = map[string][2]string{
	"doc_sat_ttft_rose": {"TTFT rose through the schedule: median %s ms over the first third of requests, %s ms over the last",
		"スケジュールが進むにつれて TTFT が上昇：最初の 3 分の 1 のリクエストで中央値 %s ミリ秒、最後の 3 分の 1 で %s ミリ秒"},
	"doc_sat_waiting": {"the server's waiting gauge averaged %s requests (max %s)", "サーバーの待機中リクエスト数は平均 %s（最大 %s）"},
	"doc_sat_completed": {"requests completed at %s/s, below the schedule's %s/s (its arrivals plus an early request's latency)",
		"リクエストの完了は毎秒 %s で、スケジュールの毎秒 %s（到着に序盤のリクエストのレイテンシを加えたもの）を下回りました"},
	"doc_sat_unfinished": {"%s requests had not finished %s after the last arrival", "最後の到着から %[2]s 後も %[1]s リクエストが終わっていませんでした"},
	"doc_predicted":      {"predicted: nothing was measured", "予測：何も測定していません"},
	"doc_no_board_power": {"No energy estimate: the catalog has no board power for %s.", "エネルギーの推定はありません：カタログに %s のボード電力がありません。"},
	"doc_cell_no_power":  {"no board power for this GPU in the catalog", "カタログにこの GPU のボード電力がありません"},
	"doc_energy_estimate": {"Energy is an estimate, not a measurement: each of %s %s at its %s W board power (%s) × (%s idle share + %s × the predicted utilization of the step's binding resource); the idle share comes from one idle H200 (%s).",
		"エネルギーは測定値ではなく推定値です。%[2]s %[1]s 基それぞれのボード電力 %[3]s W（%[4]s）×（アイドル時の割合 %[5]s ＋ %[6]s × ステップを律速するリソースの予測使用率）。アイドル時の割合はアイドル状態の H200 1 基によります（%[7]s）。"},
}

// docSentence is one of docMessages read back: its English as a pattern whose groups
// are the parts that vary.
type docSentence struct {
	key string
	re  *regexp.Regexp
}

var docSentences []docSentence

func init() {
	for k, v := range docMessages {
		if _, dup := messages[k]; dup {
			panic("site: message " + k + " defined twice")
		}
		messages[k] = v
		docSentences = append(docSentences, docSentence{k, rundoc.SentencePattern(v[0])})
	}
}

// docText is a sentence of a run document in lang: one of docMessages, or one that
// the report package says in lang (report.SentenceIn: energy and open-loop reasons,
// price notes, why an SLO cannot be read).
func docText(lang, s string) string {
	if lang == LangEN {
		return s
	}
	for _, d := range docSentences {
		if m := d.re.FindStringSubmatch(s); m != nil {
			args := make([]any, len(m)-1)
			for i, a := range m[1:] {
				args[i] = a
			}
			return T(lang, d.key, args...)
		}
	}
	return report.SentenceIn(lang, s)
}

func docTexts(lang string, ss []string) []string {
	if lang == LangEN || len(ss) == 0 {
		return ss
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = docText(lang, s)
	}
	return out
}

// docIn is run with the sentences llmbench wrote into it in lang, for the report
// body: a copy where any differs, run itself otherwise (and always in English).
func docIn(run *rundoc.Run, lang string) *rundoc.Run {
	if lang == LangEN {
		return run
	}
	out := *run
	out.Rate = make([]rundoc.RateCell, len(run.Rate))
	for i, c := range run.Rate {
		if c.RateFigures != nil && len(c.Saturation) > 0 {
			f := *c.RateFigures
			f.Saturation = docTexts(lang, f.Saturation)
			c.RateFigures = &f
		}
		out.Rate[i] = c
	}
	if run.Rate == nil {
		out.Rate = nil
	}
	if e := run.Energy; e != nil {
		en := *e
		en.Reason, en.Notes = docText(lang, e.Reason), docTexts(lang, e.Notes)
		out.Energy = &en
	}
	out.Decode = make([]rundoc.DecodeCell, len(run.Decode))
	for i, c := range run.Decode {
		if c.CellEnergy != nil && c.CellEnergy.Reason != "" {
			ce := *c.CellEnergy
			ce.Reason = docText(lang, ce.Reason)
			c.CellEnergy = &ce
		}
		out.Decode[i] = c
	}
	if run.Decode == nil {
		out.Decode = nil
	}
	return &out
}
