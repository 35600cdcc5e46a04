package site

// tieMessages are the texts of the leaderboard's intervals and ties, merged into
// messages.
var tieMessages = map[string][2]string{
	"tie":       {"Tie", "同等"},
	"tie_title": {"Tied with the entry above: their 95% intervals overlap, so the difference is within the noise they measured", "上の項目と同等：95% 信頼区間が重なっており、差は測定されたばらつきの範囲内です"},
	"tie_note": {"± is the value's 95% interval; ≈ tie marks an entry whose interval overlaps the one above.",
		"± は値の 95% 信頼区間です。「≈ 同等」は区間が上の項目と重なる項目を示します。"},
	"group_on":        {"One entry per setup", "構成ごとに 1 項目"},
	"group_off":       {"Every run", "すべての実行"},
	"setup_runs":      {"median of %d runs, %s", "%d 件の実行の中央値、%s"},
	"diff_noise":      {"within the noise: the two cells' 95% intervals overlap", "ばらつきの範囲内：2 つのセルの 95% 信頼区間が重なっています"},
	"diff_real":       {"beyond the noise: the two cells' 95% intervals do not overlap", "ばらつきを超える差：2 つのセルの 95% 信頼区間は重なりません"},
	"cell_ci":         {"95% interval %s tok/s", "95% 信頼区間 %s tok/s"},
	"chart_same_line": {"the same values as line %s (drawn dashed over it)", "線 %s と同じ値（破線で重ねて表示）"},
	"compare_noise":   {"A difference marked ≈ is within the noise (the cells' 95% intervals overlap).", "≈ の付いた差はばらつきの範囲内です（セルの 95% 信頼区間が重なっています）。"},
}

func init() {
	for k, v := range tieMessages {
		messages[k] = v
	}
}
