package rundoc

// SeedConfig is the seed page's plan, the one every default starts from (llmbench
// run's and calc's flags, the performance model's matrix): decode contexts 0, 16K,
// 32K and 56K at 1 to 128 concurrent requests, prefill rows of 8K to 56K, 30 s
// windows, at most 8192 output tokens per request, chat requests, prefill measured
// on each row's cold warm-up. Each call returns a fresh copy, so a caller may change
// its slices.
func SeedConfig() Config {
	return Config{
		Contexts:        []int{0, 16 * K, 32 * K, 56 * K},
		Concurrency:     []int{1, 2, 4, 8, 16, 32, 64, 128},
		PrefillContexts: []int{8 * K, 16 * K, 32 * K, 56 * K},
		DurationS:       30,
		MaxOutputTokens: 8192,
		DecodeTest:      "fixed-duration",
		PrefillMode:     "decode-warmup",
		API:             "chat",
	}
}
