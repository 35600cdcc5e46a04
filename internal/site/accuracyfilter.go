package site

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/site/store"
)

// The leaderboard's accuracy filter (issue 38): accuracy_within=X hides the runs whose
// accuracy on an evaluation set is more than X points below the best run of their
// model family on that set (store.AccuracyFilter says how runs and sets are matched).
// Off when the parameter is absent; the page, its form and the API take it alike.

// accuracyFilter reads accuracy_within: percentage points, 0 to 100.
func accuracyFilter(v url.Values) (store.AccuracyFilter, *FieldError) {
	s := strings.TrimSpace(v.Get("accuracy_within"))
	if s == "" {
		return store.AccuracyFilter{}, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0 && x <= 100) {
		return store.AccuracyFilter{}, fieldErrorT("accuracy_within", "qerr_accuracy_within")
	}
	return store.AccuracyFilter{On: true, WithinPoints: x}, nil
}

// accuracyMessages are the filter's texts, merged into messages.
var accuracyMessages = map[string][2]string{
	"accuracy_within": {"Hide runs more than this many accuracy points below their model's best", "モデルの最高正答率からこのポイント数を超えて低い実行を隠す"},
	"accuracy_filter_note": {"Runs whose accuracy on an evaluation set is more than %s points below the best run of their model family on the same set are hidden; runs without a finished evaluation on that set are kept.",
		"評価セットの正答率が、同じモデルファミリーの同じセットでの最高の実行より %s ポイントを超えて低い実行を隠しています。そのセットの評価を終えていない実行は表示したままです。"},
	"qerr_accuracy_within": {"must be percentage points from 0 to 100 (accuracy below the best run of the same model)", "0〜100 のパーセントポイントで指定してください（同じモデルの最高の実行との正答率の差）"},
}

func init() {
	for k, v := range accuracyMessages {
		messages[k] = v
	}
}
