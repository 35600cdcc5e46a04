package bench

import (
	"math"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

var countRank = map[string]int{rundoc.CountServerPerChunk: 0, rundoc.CountServerTotals: 1, rundoc.CountTokenizeRoute: 2, rundoc.CountFinishedRatio: 3, rundoc.CountMetricsCounter: 4, rundoc.CountClientOnly: 5}

// counting is how a cell's per-chunk token counts were resolved from what the server
// said. counts[i][j] is request i's chunk j; source[i] how request i is known.
type counting struct {
	counts [][]int
	source []string
	// ratio is the tokens per client-counted token of the requests the server
	// counted in total, applied to those it did not (1 when none were).
	ratio float64
}

// resolveCounts resolves every request's per-chunk counts, in the order the server
// offers them: its own count of each chunk; its total for the request (usage of a
// finished request, or its tokenize route on the request's text), spread over the
// chunks; the tokens per chunk of the requests it counted; otherwise the client's
// count, unverified. It changes nothing in reqs.
func resolveCounts(reqs []measure.Request) counting {
	c := counting{counts: make([][]int, len(reqs)), source: make([]string, len(reqs)), ratio: 1}
	var serverTokens, clientTokens int // over the requests the server counted in total
	var pending []int
	for i := range reqs {
		q := &reqs[i]
		counts := make([]int, len(q.Chunks))
		client := 0
		for j, ch := range q.Chunks {
			counts[j] = int(ch[1])
			client += counts[j]
		}
		c.counts[i] = counts
		switch total, src, ok := serverTotal(q); {
		case len(counts) == 0:
			c.source[i] = rundoc.CountServerPerChunk // nothing to count
		case q.ChunkUsage:
			c.source[i] = rundoc.CountServerPerChunk
		case ok:
			c.source[i] = src
			serverTokens += total
			clientTokens += client
			if !agrees(total, client, src) {
				spread(counts, total)
			}
		default:
			pending = append(pending, i)
		}
	}
	if clientTokens > 0 {
		c.ratio = float64(serverTokens) / float64(clientTokens)
	}
	for _, i := range pending {
		if clientTokens == 0 {
			c.source[i] = rundoc.CountClientOnly
			continue
		}
		c.source[i] = rundoc.CountFinishedRatio
		if math.Abs(c.ratio-1) > 0.005 {
			spreadRatio(c.counts[i], c.ratio)
		}
	}
	return c
}

// serverTotal is the server's count of a request's tokens, where it gave one.
func serverTotal(q *measure.Request) (int, string, bool) {
	if q.Finished() && q.Usage != nil && q.Usage.CompletionTokens > 0 {
		return q.Usage.CompletionTokens, rundoc.CountServerTotals, true
	}
	if q.TextTokens != nil && *q.TextTokens > 0 {
		return *q.TextTokens, rundoc.CountTokenizeRoute, true
	}
	return 0, "", false
}

// agrees says whether the server's total confirms the client's count. Usage must match
// exactly; a tokenize route re-tokenizes text, which may merge or add a token at the
// edges, so it confirms within one token and 1%.
func agrees(server, client int, src string) bool {
	if src == rundoc.CountTokenizeRoute {
		return math.Abs(float64(server-client)) <= 1+0.01*float64(client)
	}
	return server == client
}

// spread rescales counts so that they add up to total, each chunk's share in
// proportion to the client's count of it, rounded so that the shares add up exactly.
func spread(counts []int, total int) {
	client := 0
	for _, n := range counts {
		client += n
	}
	if client == 0 {
		return
	}
	cum := 0
	prev := 0
	for j, n := range counts {
		cum += n
		next := int(math.Round(float64(total) * float64(cum) / float64(client)))
		counts[j] = next - prev
		prev = next
	}
}

// spreadRatio multiplies counts by ratio, rounding cumulatively.
func spreadRatio(counts []int, ratio float64) {
	client := 0
	for _, n := range counts {
		client += n
	}
	spread(counts, int(math.Round(ratio*float64(client))))
}

// weakest is the weakest source among those given.
func weakest(sources []string) string {
	w := rundoc.CountServerPerChunk
	for _, s := range sources {
		if countRank[s] > countRank[w] {
			w = s
		}
	}
	return w
}
