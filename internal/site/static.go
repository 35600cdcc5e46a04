package site

import (
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/llmbench/llmbench/internal/site/wire"
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
func (s *Server) staticFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "" || strings.ContainsAny(name, `/\`) || strings.Trim(name, ".") == "" || !fs.ValidPath(name) {
		s.notFound(w, r)
		return
	}
	b, err := fs.ReadFile(staticFiles, name)
	if err != nil {
		s.notFound(w, r)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(b)
}

func (s *Server) favicon(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(staticFiles, "favicon.ico")
	if err != nil {
		s.notFound(w, r)
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

func (s *Server) robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write([]byte(robotsTxt))
}

// noRoute answers what no route matched: 405 with Allow when the path is a route for
// other methods (PUT /api/v1/runs), else the not-found page.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if s.mux != nil {
		if methods := allowed(s.mux, r); len(methods) > 0 {
			w.Header().Set("Allow", strings.Join(methods, ", "))
			if strings.HasPrefix(r.URL.Path, "/api/") {
				wire.WriteError(w, http.StatusMethodNotAllowed, "method", r.Method+" is not allowed here; use "+strings.Join(methods, ", "))
				return
			}
			http.Error(w, "method not allowed; use "+strings.Join(methods, ", "), http.StatusMethodNotAllowed)
			return
		}
	}
	s.notFound(w, r)
}
