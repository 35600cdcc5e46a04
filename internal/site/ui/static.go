package ui

import (
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// staticFiles is the one directory /static/ serves: templates and everything else
// embedded stay out of reach whatever the requested name decodes to.
var staticFiles = func() fs.FS {
	sub, err := fs.Sub(assets, "static")
	if err != nil {
		panic(err)
	}
	return sub
}()

// staticFile serves one file of static/ by its plain name: a name with a slash,
// a backslash or dots only (../templates/layout.html, %2e%2e) is not one.
func (s *Pages) StaticFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "" || strings.ContainsAny(name, `/\`) || strings.Trim(name, ".") == "" || !fs.ValidPath(name) {
		s.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(staticFiles, name)
	if err != nil {
		s.NotFound(w, r)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(b)
}

// Favicon serves GET /favicon.ico.
func (s *Pages) Favicon(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(staticFiles, "favicon.ico")
	if err != nil {
		s.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/x-icon")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write(b)
}

// robotsTxt lets crawlers read the pages and keeps them off what has endless
// addresses (every combination of runs to compare, every calculator input) or is
// not for them (the API, the report form).
const robotsTxt = `User-agent: *
Disallow: /api/
Disallow: /compare
Disallow: /calculator?
Disallow: /reports/new
Allow: /
`

// Robots serves GET /robots.txt.
func (s *Pages) Robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write([]byte(robotsTxt))
}
