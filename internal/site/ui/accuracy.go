package ui

import (
	"bytes"
	"html/template"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The accuracy a run document holds (llmbench eval, issue 38), on the run page beside
// the speed figures, and the paired A/B of two runs on the compare page. Both are
// rendered here, auto-escaped, so the shared templates only place them.

var accuracyTmpl = template.Must(template.New("accuracy").Funcs(template.FuncMap{"T": locale.T}).Parse(`
{{- range .Sets}}<section class="accuracy" id="accuracy-{{.Name}}">
<h2>{{T $.Lang "accuracy"}} — {{.Name}}</h2><p class="sub">{{T $.Lang "accuracy_sub"}}</p>
{{range .Lines}}<p class="accuracy-line">{{.}}</p>{{end}}
{{if .Categories}}<table class="accuracy-categories"><thead><tr><th>{{T $.Lang "category"}}</th><th class="num">{{T $.Lang "items"}}</th><th class="num">{{T $.Lang "right"}}</th><th class="num">{{T $.Lang "ci95"}}</th></tr></thead>
<tbody>{{range .Categories}}<tr><td>{{.Name}}</td><td class="num">{{.Scored}}</td><td class="num">{{.Score}}</td><td class="num">{{.CI}}</td></tr>{{end}}</tbody></table>{{end}}
</section>{{end}}
{{- range .Pairs}}<section class="accuracy-ab" id="ab-{{.Set}}">{{range $i, $l := .Lines}}{{if $i}}<p class="accuracy-line">{{$l}}</p>{{else}}<h2>{{$l}}</h2>{{end}}{{end}}</section>{{end}}`))

type accuracySet struct {
	Name       string
	Lines      []string
	Categories []accuracyCategory
}

type accuracyCategory struct{ Name, Scored, Score, CI string }

type accuracyPair struct {
	Set   string
	Lines []string
}

// accuracyHTML is a run's evaluations, "" when it has none.
func accuracyHTML(run *rundoc.Run, lang string) template.HTML {
	var sets []accuracySet
	for _, a := range run.Accuracy {
		s := accuracySet{Name: a.Set.Name, Lines: report.AccuracyLines(lang, a)}
		for _, r := range report.AccuracyCategoryRows(lang, a) {
			s.Categories = append(s.Categories, accuracyCategory{r[0], r[1], r[2], r[3]})
		}
		sets = append(sets, s)
	}
	return renderAccuracy(lang, sets, nil)
}

// withoutAccuracy is run without its evaluations, for the report body of a page that
// shows them itself: a copy where it has any, run itself otherwise.
func withoutAccuracy(run *rundoc.Run) *rundoc.Run {
	if len(run.Accuracy) == 0 {
		return run
	}
	out := *run
	out.Accuracy = nil
	return &out
}

// abHTML is the paired A/B of the first run against each other, on every set both
// evaluated; "" when they share none.
func abHTML(runs []*rundoc.Run, lang string) template.HTML {
	var pairs []accuracyPair
	for _, other := range runs[1:] {
		for i := range runs[0].Accuracy {
			a := &runs[0].Accuracy[i]
			if b := other.AccuracyOf(a.Set.Name); b != nil {
				c := accuracy.Compare(a, b)
				pairs = append(pairs, accuracyPair{Set: a.Set.Name, Lines: report.ComparisonLines(lang, c)})
			}
		}
	}
	return renderAccuracy(lang, nil, pairs)
}

func renderAccuracy(lang string, sets []accuracySet, pairs []accuracyPair) template.HTML {
	if len(sets) == 0 && len(pairs) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := accuracyTmpl.Execute(&b, struct {
		Lang  string
		Sets  []accuracySet
		Pairs []accuracyPair
	}{lang, sets, pairs}); err != nil {
		return ""
	}
	return template.HTML(b.String()) // html/template output: escaped
}
