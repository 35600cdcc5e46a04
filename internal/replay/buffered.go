package replay

import (
	"bytes"
	"net/http"
)

// bufferedWriter is a proxy that buffers a streamed response (Config.Buffered): it
// keeps every write and flush to itself and sends the whole body at once, when the
// response ends.
type bufferedWriter struct {
	http.ResponseWriter
	buf    bytes.Buffer
	status int
}

func (b *bufferedWriter) WriteHeader(status int) { b.status = status }
func (b *bufferedWriter) Write(p []byte) (int, error) {
	return b.buf.Write(p)
}
func (b *bufferedWriter) Flush() {}

// release writes what was held, in one write.
func (b *bufferedWriter) release() {
	if b.status != 0 {
		b.ResponseWriter.WriteHeader(b.status)
	}
	b.ResponseWriter.Write(b.buf.Bytes())
	if f, ok := b.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
