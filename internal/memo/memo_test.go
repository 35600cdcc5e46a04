package memo

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestGetKeepsWhatComputeKeeps(t *testing.T) {
	c := New[int](10, 0)
	calls := 0
	count := func(keep bool) func() (int, bool) {
		return func() (int, bool) { calls++; return calls, keep }
	}
	if v, ok := c.Get("a", count(true)); v != 1 || !ok {
		t.Errorf("first Get = %d, %v", v, ok)
	}
	if v, ok := c.Get("a", count(true)); v != 1 || !ok || calls != 1 {
		t.Errorf("second Get = %d, %v after %d computations; want the kept 1", v, ok, calls)
	}
	if v, ok := c.Get("b", count(false)); v != 2 || ok {
		t.Errorf("an answer not to keep: %d, %v", v, ok)
	}
	if c.Get("b", count(true)); calls != 3 {
		t.Errorf("an answer not kept was reused (%d computations)", calls)
	}
	c.Forget()
	if c.Get("a", count(true)); calls != 4 {
		t.Error("Forget kept an answer")
	}
}

func TestGetErrKeepsOnlySuccesses(t *testing.T) {
	c := New[string](10, 0)
	fail := errors.New("store down")
	if _, err := c.GetErr("k", func() (string, error) { return "", fail }); err != fail {
		t.Fatalf("err = %v", err)
	}
	v, err := c.GetErr("k", func() (string, error) { return "ok", nil })
	if v != "ok" || err != nil {
		t.Errorf("after a failure: %q, %v; want it computed again", v, err)
	}
}

func TestTTL(t *testing.T) {
	c := New[int](10, time.Nanosecond)
	n := 0
	c.Get("a", func() (int, bool) { n++; return n, true })
	time.Sleep(time.Millisecond)
	if v, _ := c.Get("a", func() (int, bool) { n++; return n, true }); v != 2 {
		t.Errorf("an answer past its TTL was reused: %d", v)
	}
}

func TestBounded(t *testing.T) {
	c := New[int](100, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				c.Get(fmt.Sprint(g, "-", i), func() (int, bool) { return i, true })
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 100 || len(c.m) == 0 {
		t.Errorf("%d entries kept, want some, at most 100", len(c.m))
	}
}
