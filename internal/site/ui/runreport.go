package ui

import (
	"bytes"
	"errors"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// MaxRunReportBytes bounds the report body a run page embeds. The largest document
// the site accepts (64 × 64 decode cells) makes a report body of over 5 MB before any
// reason: its matrix, four charts of 64 lines and a table of 4,096 rows. Such a page
// was never kept by the page cache (4 MiB a page) and rendering it for every reader
// kept both cores busy at about 5 requests/s (issue 37). A report over the limit is
// not shown: the page shows the site's own view of the run (its figures, its matrix
// with each reason once) and says how to see the whole report. 2 MiB holds a
// 32 × 32 matrix with room to spare.
const MaxRunReportBytes = 2 << 20

// errReportTooLarge: the report body passed MaxRunReportBytes.
var errReportTooLarge = errors.New("the run's report is over the run page's limit")

// reportBody renders run's report body in lang, stopping (errReportTooLarge) as soon
// as it passes MaxRunReportBytes.
func (s *Pages) reportBody(run *rundoc.Run, lang string) (string, error) {
	buf := cappedBuffer{max: MaxRunReportBytes}
	if err := s.report.Body(&buf, run, lang); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// cappedBuffer is a buffer that refuses a write taking it past max.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		return 0, errReportTooLarge
	}
	return c.Buffer.Write(p)
}
