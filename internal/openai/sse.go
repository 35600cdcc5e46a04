package openai

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"
)

// Event is one dispatched server-sent event: its type (the last "event:" line, empty
// when none), its data (the "data:" lines joined by "\n") and the arrival time of its
// last byte. Data is valid until the next call to Next.
type Event struct {
	Type string
	Data []byte
	At   time.Time
}

// timedReader remembers when each Read returned, so that an event can be stamped with
// the arrival of its last byte rather than with the time the parser got to it, and
// counts the reads that brought bytes.
type timedReader struct {
	r     io.Reader
	now   func() time.Time
	last  time.Time
	reads int
}

func (t *timedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.last = t.now()
		t.reads++
	}
	return n, err
}

// maxStray bounds how much of a line that is not an SSE field is kept.
const maxStray = 300

// SSEReader parses a text/event-stream body as the HTML living standard says: comment
// lines (":", keep-alives) and unknown fields are ignored, "event:" sets the type,
// "data:" lines are joined, and an event whose data buffer is empty — "event: ping"
// alone, a keep-alive "data:" — is not dispatched. It handles CRLF and LF line ends,
// events split across reads, and lines of any length (bufio.Scanner's 64 KB limit
// does not apply).
type SSEReader struct {
	tr      *timedReader
	br      *bufio.Reader
	line    []byte // reused buffer for lines longer than the bufio buffer
	data    []byte // data of the event being assembled (reused)
	hasData bool
	typ     string

	// Empty counts events not dispatched because their data was empty.
	Empty int
	// ErrorField is the value of the last "error:" field line (llama.cpp's server
	// once wrote stream errors so): not an SSE field, but the server's message.
	ErrorField []byte
	// Stray is the last line that is not an SSE field at all (a JSON error body
	// written into a stream, an HTML error page), cut to 300 bytes.
	Stray []byte
}

// NewSSEReader reads events from r, stamping them with the wall clock.
func NewSSEReader(r io.Reader) *SSEReader {
	return newSSEReader(r, time.Now)
}

func newSSEReader(r io.Reader, now func() time.Time) *SSEReader {
	tr := &timedReader{r: r, now: now}
	return &SSEReader{tr: tr, br: bufio.NewReaderSize(tr, 32<<10)}
}

// Reads is how many reads of the body brought bytes so far.
func (s *SSEReader) Reads() int { return s.tr.reads }

// Next returns the next event. At the end of the stream it returns io.EOF; an event
// left incomplete by a broken stream is dropped and the read error returned
// (io.ErrUnexpectedEOF for a stream that ended mid-event).
func (s *SSEReader) Next() (Event, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && len(s.data) > 0 {
				// The spec discards an event not terminated by a blank line; a server that
				// closes right after its last data line (some do) would lose it.
				return s.dispatch(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 { // blank line: dispatch
			if len(s.data) == 0 {
				if s.hasData || s.typ != "" {
					s.Empty++
				}
				s.reset()
				continue
			}
			return s.dispatch(), nil
		}
		if line[0] == ':' { // comment / keep-alive
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.hasData = true
			s.data = append(s.data, value...)
		case "event":
			s.typ = string(value)
		case "id", "retry":
			// Reconnection state: a benchmark never reconnects.
		case "error":
			s.ErrorField = append(s.ErrorField[:0], value...)
		default:
			s.Stray = append(s.Stray[:0], line[:min(len(line), maxStray)]...)
		}
	}
}

func (s *SSEReader) dispatch() Event {
	ev := Event{Type: s.typ, Data: s.data, At: s.tr.last}
	s.reset()
	return ev
}

func (s *SSEReader) reset() {
	s.data, s.hasData, s.typ = s.data[:0], false, ""
}

// readLine returns one line without its line end. The returned slice is valid until
// the next call.
func (s *SSEReader) readLine() ([]byte, error) {
	frag, err := s.br.ReadSlice('\n')
	if err == nil {
		return trimEOL(frag), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) && len(frag) > 0 {
			// A last line without its line end: an incomplete event.
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	// A line longer than the buffer: collect it.
	s.line = append(s.line[:0], frag...)
	for {
		frag, err = s.br.ReadSlice('\n')
		s.line = append(s.line, frag...)
		if err == nil {
			return trimEOL(s.line), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = b[:len(b)-1] // '\n'
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}
