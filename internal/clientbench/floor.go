package clientbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/llmbench/llmbench/internal/openai"
)

// paddedCount keeps each stream's counter on its own cache line, so that counting costs
// the floor an uncontended add and nothing more.
type paddedCount struct {
	n atomic.Int64
	_ [56]byte
}

// floorClient is the bare reader: the same transport and the same request as llmbench,
// then only lines read and "data:" lines counted (the [DONE] line excepted). It counts
// the role chunk and the final usage chunk too — two lines a request more than there
// are tokens, which flatters the floor by 2/max_tokens.
type floorClient struct {
	http   *http.Client
	url    string
	body   []byte
	counts []paddedCount
	errs   atomic.Int64
}

func newFloorClient(base string, streams, maxTokens int) (*floorClient, error) {
	body, err := json.Marshal(streamRequest(maxTokens))
	if err != nil {
		return nil, err
	}
	return &floorClient{
		http:   &http.Client{Transport: openai.NewTransport(streams)},
		url:    base + "/v1/chat/completions",
		body:   body,
		counts: make([]paddedCount, streams),
	}, nil
}

// streamRequest is the request llmbench sends to a vLLM-like server for a decode cell.
func streamRequest(maxTokens int) *openai.ChatRequest {
	return &openai.ChatRequest{
		Model: "zerostream", Messages: []openai.Message{{Role: "user", Content: "Hello"}}, MaxTokens: openai.Ptr(maxTokens),
		RequestOptions: openai.RequestOptions{
			Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true, ContinuousUsageStats: true},
			IgnoreEOS: openai.Ptr(true), MinTokens: openai.Ptr(maxTokens),
		},
	}
}

func (f *floorClient) tokens() int64 {
	var n int64
	for i := range f.counts {
		n += f.counts[i].n.Load()
	}
	return n
}

// run keeps every stream busy until ctx ends.
func (f *floorClient) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range f.counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := f.stream(ctx, &f.counts[i].n); err != nil && ctx.Err() == nil {
					f.errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
}

var dataPrefix, doneLine = []byte("data: "), []byte("data: [DONE]")

func (f *floorClient) stream(ctx context.Context, count *atomic.Int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, bytes.NewReader(f.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	br := bufio.NewReaderSize(resp.Body, 32<<10)
	for {
		line, err := br.ReadSlice('\n')
		if bytes.HasPrefix(line, dataPrefix) && !bytes.HasPrefix(line, doneLine) {
			count.Add(1)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
	}
}
