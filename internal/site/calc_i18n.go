package site

// calcMessages are the calculator's refusals of its form and the price of its
// energy estimate (calc.go, calcpage.go), merged into messages.
var calcMessages = map[string][2]string{
	"calc_reason_int":      {"must be a whole number from %d to %d", "%d 以上 %d 以下の整数で指定してください"},
	"calc_reason_tokens":   {"must be a token count from 1 to %d, like 16384 or 16K", "1〜%d のトークン数で指定してください（例：16384 または 16K）"},
	"calc_reason_util":     {"must be a share of the GPU's memory, above 0 and at most 1 (like 0.9)", "GPU メモリの割合を、0 より大きく 1 以下で指定してください（例：0.9）"},
	"calc_reason_on_off":   {"must be on or off", "on か off で指定してください"},
	"calc_reason_required": {"is required (a GPU and a model)", "必須です（GPU とモデルの両方を指定してください）"},
	"calc_energy_cost":     {"Cost at $%s an hour: %s, %s.", "コストは 1 時間あたり $%s として計算しています（%s、%s）。"},
}

func init() {
	for k, v := range calcMessages {
		if _, dup := messages[k]; dup {
			panic("site: message " + k + " defined twice")
		}
		messages[k] = v
	}
}
