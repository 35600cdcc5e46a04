package replay

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// llama-server's behaviour beyond its stream shape, written from its source
// (ggml-org/llama.cpp at 001d906, tools/server/; cpp-httplib 0.36.0 as vendored in
// vendor/cpp-httplib), as a server a run can meet:
//
//   - Slots (server-context.cpp): -np N slots of n_ctx tokens each. A request takes a
//     free slot — the one it names (id_slot); else the free slot whose cached prompt
//     it shares (get_available_slot's similarity, above slot_prompt_similarity 0.1);
//     else the least recently used — and waits, deferred, while none is free
//     (queue_tasks.defer; /metrics requests_deferred), served in the order it came
//     once a slot is released (pop_deferred_task).
//   - The prompt cache is the slot's: a slot keeps its last prompt, and a request
//     reuses the prefix it shares with it (n_prompt_tokens_cache, the timings'
//     cache_n); a slot that held another prompt reads the whole prompt again.
//     The host-memory prompt cache (--cache-ram) is not modelled.
//   - A slot's context bounds a request: generation stops with finish "length" once
//     prompt + generated reach n_ctx (process_token: n_tokens + 1 >= n_ctx, context
//     shift off), and a prompt that fills the slot is refused with HTTP 400
//     exceed_context_size_error.
//   - /props (get_res_props): n_ctx per slot, total_slots, model_alias, model_path,
//     model_ftype, build_info; /slots (server_slot::to_json): one entry per slot with
//     is_processing and its prompt cache; /v1/models (get_res_model_info): the model
//     named after its path without -a.
//   - After every streamed response the connection closes although the response's
//     headers promised keep-alive (server-http.cpp process_handler_response: the
//     content provider returns has_next = false after sink.done(); cpp-httplib's
//     write_content_chunked then returns false, process_request returns false, and
//     process_server_socket_core's keep-alive loop breaks and shuts the socket). A
//     request a client writes on that connection fails before any byte of an answer.

// llamaSlot is one of llama-server's slots.
type llamaSlot struct {
	busy bool
	// shared is the shared part of its last prompt; used says it held one.
	shared string
	used   bool
	// lastUsed orders the slots for LRU (t_last_used, set when a slot is released).
	lastUsed int64
}

// llamaSlots is the server's slots and the requests deferred until one is free, in
// the order they came (server_queue::defer; a released slot takes the deferred tasks
// again in order, pop_deferred_task).
type llamaSlots struct {
	mu      sync.Mutex
	slots   []llamaSlot
	clock   int64
	waiters []*llamaWaiter
}

// llamaWaiter is a deferred request: what picks its slot, and where it is told.
type llamaWaiter struct {
	shared string
	idSlot *int
	got    chan llamaGrant
}

// llamaGrant is a slot given to a request: whether its cache held the request's
// shared prompt, and whether it held any prompt.
type llamaGrant struct {
	id        int
	hit, used bool
}

func newLlamaSlots(n int) *llamaSlots {
	return &llamaSlots{slots: make([]llamaSlot, max(n, 1))}
}

// take waits for a slot as llama-server assigns them; ok is false when ctx ended
// first. waiting is told when the request starts and stops waiting.
func (l *llamaSlots) take(ctx context.Context, shared string, idSlot *int, waiting func(int)) (g llamaGrant, ok bool) {
	l.mu.Lock()
	if len(l.waiters) == 0 {
		if id := l.pick(shared, idSlot); id >= 0 {
			g = l.grant(id, shared)
			l.mu.Unlock()
			return g, true
		}
	}
	w := &llamaWaiter{shared: shared, idSlot: idSlot, got: make(chan llamaGrant, 1)}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	waiting(+1)
	defer waiting(-1)
	select {
	case g = <-w.got:
		return g, true
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if i := slices.Index(l.waiters, w); i >= 0 {
			l.waiters = slices.Delete(l.waiters, i, i+1)
			return g, false
		}
		g = <-w.got // given a slot as it left: give it back
		l.free(g.id, l.slots[g.id])
		return g, false
	}
}

// grant marks a slot busy for a request (l.mu held).
func (l *llamaSlots) grant(id int, shared string) llamaGrant {
	s := &l.slots[id]
	g := llamaGrant{id: id, hit: s.used && s.shared == shared, used: s.used}
	s.busy = true
	return g
}

// pick is the slot a request gets now, -1 when it must wait.
func (l *llamaSlots) pick(shared string, idSlot *int) int {
	if idSlot != nil && *idSlot >= 0 {
		id := *idSlot % len(l.slots)
		if l.slots[id].busy {
			return -1
		}
		return id
	}
	for i, s := range l.slots {
		if !s.busy && s.used && s.shared == shared {
			return i
		}
	}
	best := -1
	for i, s := range l.slots {
		if s.busy {
			continue
		}
		if best < 0 || !s.used && l.slots[best].used || s.used == l.slots[best].used && s.lastUsed < l.slots[best].lastUsed {
			best = i
		}
	}
	return best
}

// release frees a slot, which now holds the request's prompt.
func (l *llamaSlots) release(id int, shared string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clock++
	l.free(id, llamaSlot{shared: shared, used: true, lastUsed: l.clock})
}

// free sets a slot free as s and gives the deferred requests, in order, the slots
// they can take now (l.mu held).
func (l *llamaSlots) free(id int, s llamaSlot) {
	s.busy = false
	l.slots[id] = s
	for i := 0; i < len(l.waiters); {
		w := l.waiters[i]
		if id := l.pick(w.shared, w.idSlot); id >= 0 {
			w.got <- l.grant(id, w.shared)
			l.waiters = slices.Delete(l.waiters, i, i+1)
			continue
		}
		i++
	}
}

// busy is which slots are processing.
func (l *llamaSlots) busy() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]bool, len(l.slots))
	for i, s := range l.slots {
		out[i] = s.busy
	}
	return out
}

// sharedTokens is how many tokens of a prompt its shared part holds, with the chat
// template before it: what a slot holding that part finds cached.
func (s *Server) sharedTokens(b requestBody) int {
	n := countWords(sharedPart(b.text()))
	if b.Messages != nil {
		n += s.cfg.ChatOverhead
	}
	return n
}

// llamaSlot assigns a llama-server slot to a request: it waits for one, and sets what
// the slot's cache held. It returns the release to defer, or nil when the client left
// while it waited.
func (s *Server) llamaSlot(ctx context.Context, rec *Record) func() {
	shared := sharedPart(rec.Body.text())
	g, ok := s.llama.take(ctx, shared, rec.Body.IDSlot, func(d int) { s.adjust(0, d) })
	if !ok {
		return nil
	}
	id, hit, used := g.id, g.hit, g.used
	// The cache is a prefix at token granularity: a slot that held another prompt
	// still holds the chat template's start, which every chat prompt shares (the 21
	// tokens issue 34's cold 1K prefill found cached).
	cached := 0
	switch {
	case hit:
		cached = min(s.sharedTokens(rec.Body), rec.Prompt)
	case used && rec.Body.Messages != nil:
		cached = min(s.cfg.ChatOverhead, rec.Prompt)
	}
	s.mu.Lock()
	rec.Slot, rec.Cold, rec.CacheN = id, !hit, &cached
	s.mu.Unlock()
	return func() { s.llama.release(id, shared) }
}

// llamaLimit is how many tokens a request generates before its slot's context is
// full (all it asked for when that comes first); 0 when its prompt fills the slot.
func (s *Server) llamaLimit(rec *Record) int {
	l := s.cfg.Llama
	if l == nil || l.NCtx <= 0 {
		return rec.MaxTokens
	}
	return max(min(rec.MaxTokens, l.NCtx-rec.Prompt), 0)
}

// exceedContext is llama-server's answer to a prompt that fills its slot
// (ERROR_TYPE_EXCEED_CONTEXT_SIZE, format_error_response).
func (s *Server) exceedContext(w http.ResponseWriter, rec *Record) {
	s.setStatus(rec, http.StatusBadRequest)
	w.Header().Set("Connection", "close") // cpp-httplib closes after an error status
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"code": 400, "message": "the request exceeds the available context size, try increasing it",
		"type": "exceed_context_size_error", "n_prompt_tokens": rec.Prompt, "n_ctx": s.cfg.Llama.NCtx}})
}

// closeAfterStream ends a streamed response as llama-server does: the chunked body's
// last chunk, then the socket closed, the headers' keep-alive notwithstanding. late
// waits, before closing, for the client's next request (LlamaSlots.CloseLate).
func closeAfterStream(w http.ResponseWriter, late bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	rw.WriteString("0\r\n\r\n")
	rw.Flush()
	if late {
		conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		rw.Peek(1) // the next request's first byte, never answered
	}
}

// modelPath is the model's file as llama-server was given it: Config.Llama's
// ModelPath, else a path made of the model's name.
func (s *Server) modelPath() string {
	if p := s.cfg.Llama.ModelPath; p != "" {
		return p
	}
	return "/models/" + strings.TrimSuffix(s.model, ".gguf") + ".gguf"
}
