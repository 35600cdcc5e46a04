package engine

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Version is an engine version as its engine orders it: a release number compared
// part by part, then what the engine's scheme puts around a release (a pre-release, a
// post-release, a development build). Only ParseVersion makes one.
type Version struct {
	scheme  string // pep440, semver or build
	release []int  // trailing zeros trimmed: 0.11 and 0.11.0 are one release
	// PEP 440's pre (a, b, rc as 0, 1, 2, with its number), post and dev segments,
	// each as the key packaging's _cmpkey gives it (pep440Key).
	pre  [2]int
	post int
	dev  int
	// local is PEP 440's local label (0.10.2+cu128): a local build sorts after its
	// public release.
	local string
	// semver's pre-release identifiers (none for a release).
	preIDs []string
}

// The schemes engines number their releases by.
const (
	schemePEP440 = "pep440" // Python packages: vLLM, SGLang, TensorRT-LLM
	schemeSemver = "semver" // Go and Rust servers: Ollama, TGI; LM Studio, the emulator
	schemeBuild  = "build"  // llama.cpp's build numbers, b6609
)

// versionSchemes says how each engine numbers its releases; an engine not named has
// no rule (an OpenAI-compatible server of unknown make).
var versionSchemes = map[string]string{
	VLLM: schemePEP440, SGLang: schemePEP440, TRTLLM: schemePEP440,
	Ollama: schemeSemver, TGI: schemeSemver, LMStudio: schemeSemver, Sim: schemeSemver,
	LlamaCpp: schemeBuild,
}

// engineAliases are other names documents give engines (tools other than llmbench
// write them; the site's filters take any case).
var engineAliases = map[string]string{
	"llama.cpp": LlamaCpp, "llama-cpp": LlamaCpp, "llama-server": LlamaCpp,
	"tensorrt-llm": TRTLLM, "tensorrt_llm": TRTLLM, "trt-llm": TRTLLM,
	"text-generation-inference": TGI, "lm-studio": LMStudio, "lm studio": LMStudio,
}

// engineKey is engine's name as versionSchemes holds it: in lower case, an alias as
// the name it stands for.
func engineKey(engine string) string {
	e := strings.ToLower(strings.TrimSpace(engine))
	if a, ok := engineAliases[e]; ok {
		return a
	}
	return e
}

// ParseVersion reads v by engine's rule (engine in any case, or an alias: llama.cpp,
// tensorrt-llm). It is false when engine has no rule or v
// does not follow it (an empty version, "b0-unknown", a commit hash).
func ParseVersion(engine, v string) (Version, bool) {
	v = strings.TrimSpace(v)
	switch versionSchemes[engineKey(engine)] {
	case schemePEP440:
		return parsePEP440(v)
	case schemeSemver:
		return parseSemver(v)
	case schemeBuild:
		return parseBuild(v)
	}
	return Version{}, false
}

// CompareVersions orders two versions of one engine as the engine does (-1, 0, +1);
// ok is false when either does not follow the engine's rule.
func CompareVersions(engine, a, b string) (c int, ok bool) {
	va, oka := ParseVersion(engine, a)
	vb, okb := ParseVersion(engine, b)
	if !oka || !okb {
		return 0, false
	}
	return va.Compare(vb), true
}

// Compare orders v before w (-1), with it (0) or after it (+1). Versions of two
// schemes do not meet (one engine has one scheme); they order by scheme name.
func (v Version) Compare(w Version) int {
	if c := strings.Compare(v.scheme, w.scheme); c != 0 {
		return c
	}
	if c := slices.Compare(v.release, w.release); c != 0 {
		return c
	}
	switch v.scheme {
	case schemePEP440:
		return cmp.Or(slices.Compare(v.pre[:], w.pre[:]), cmp.Compare(v.post, w.post), cmp.Compare(v.dev, w.dev),
			naturalCompare(v.local, w.local)) // no label sorts first
	case schemeSemver:
		return comparePreIDs(v.preIDs, w.preIDs)
	}
	return 0
}

// pep440 is PEP 440's version with its local label (+cu128).
var pep440 = regexp.MustCompile(`(?i)^v?(\d+(?:\.\d+)*)` +
	`(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?` +
	`(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d*))?` +
	`(?:[-_.]?(dev)[-_.]?(\d*))?` +
	`(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`)

// Sentinels for PEP 440's absent segments, placed as packaging's _cmpkey places them.
const (
	pepAbsentLow  = -1 << 62
	pepAbsentHigh = 1 << 62
)

// parsePEP440 reads a Python package version: 0.10.1, 0.10.1.1, 0.4.1.post3,
// 0.11.0rc1, 1.0.0rc4, 0.11.1.dev12+g1234. X.devN < X.aN < X.bN < X.rcN < X < X.postN.
func parsePEP440(s string) (Version, bool) {
	m := pep440.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	v := Version{scheme: schemePEP440, release: releaseParts(m[1]), pre: [2]int{pepAbsentHigh, 0}, post: pepAbsentLow, dev: pepAbsentHigh,
		local: strings.ToLower(m[9])}
	if m[2] != "" {
		v.pre = [2]int{preKind(strings.ToLower(m[2])), atoi(m[3])}
	}
	switch {
	case m[4] != "":
		v.post = atoi(m[4])
	case m[5] != "":
		v.post = atoi(m[6])
	}
	if m[7] != "" {
		v.dev = atoi(m[8])
		if m[2] == "" && v.post == pepAbsentLow {
			v.pre = [2]int{pepAbsentLow, 0} // X.devN comes before X's pre-releases
		}
	}
	return v, true
}

// preKind numbers PEP 440's pre-release spellings: alpha < beta < release candidate.
func preKind(s string) int {
	switch s {
	case "a", "alpha":
		return 0
	case "b", "beta":
		return 1
	}
	return 2 // rc, c, pre, preview
}

// semver is major.minor[.patch][-pre-release][+build]; a missing patch is 0.
var semver = regexp.MustCompile(`^v?(\d+\.\d+(?:\.\d+)?)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$`)

// parseSemver reads a semantic version: 0.12.3, v0.12.4-rc1, 3.3.4-dev0.
func parseSemver(s string) (Version, bool) {
	m := semver.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	v := Version{scheme: schemeSemver, release: releaseParts(m[1])}
	if m[2] != "" {
		v.preIDs = strings.Split(m[2], ".")
	}
	return v, true
}

// comparePreIDs orders semver pre-releases: a release after all of its
// pre-releases, then identifier by identifier (numbers below words), a shorter list
// first. Within a word, runs of digits compare as numbers, so that Ollama's rc10
// comes after rc9 as its tags do.
func comparePreIDs(a, b []string) int {
	switch {
	case len(a) == 0 || len(b) == 0:
		return -cmp.Compare(len(a), len(b)) // none (a release) is above any
	}
	for i := range min(len(a), len(b)) {
		na, errA := strconv.Atoi(a[i])
		nb, errB := strconv.Atoi(b[i])
		var c int
		switch {
		case errA == nil && errB == nil:
			c = cmp.Compare(na, nb)
		case errA == nil:
			c = -1
		case errB == nil:
			c = 1
		default:
			c = naturalCompare(a[i], b[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// naturalCompare compares two words with their runs of digits as numbers.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			if c := cmp.Compare(atoi(a[:da]), atoi(b[:db])); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is how many decimal digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// build is llama.cpp's release tag, b6609, as llamaBuild keeps it, or a build_info
// with its commit, b6609-1a2b3c4.
var build = regexp.MustCompile(`^b(\d+)(?:-[0-9A-Za-z]+)?$`)

// parseBuild reads a llama.cpp build number; b0 is a build without version metadata.
func parseBuild(s string) (Version, bool) {
	m := build.FindStringSubmatch(s)
	if m == nil || atoi(m[1]) == 0 {
		return Version{}, false
	}
	return Version{scheme: schemeBuild, release: []int{atoi(m[1])}}, true
}

// releaseParts reads "0.10.1" as [0 10 1] without trailing zeros.
func releaseParts(s string) []int {
	var out []int
	for p := range strings.SplitSeq(s, ".") {
		out = append(out, atoi(p))
	}
	for len(out) > 1 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// atoi reads digits the patterns above matched; an empty number is 0, as PEP 440's
// implicit numbers are.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}
