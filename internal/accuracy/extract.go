package accuracy

import (
	"math/big"
	"regexp"
	"strings"
)

// Scorers: how an item's answer is taken from the response and judged.
const (
	// Number: the GSM8K rule. The number after "####" (the original grader,
	// openai/grade-school-math dataset.py, and lm-evaluation-harness's gsm8k
	// "strict-match"), else the last \boxed{} number, else the last number in the
	// text (lm-evaluation-harness's "flexible-extract": the last match of
	// (-?[$0-9.,]{2,})|(-?[0-9]+)); commas, "$" and a trailing "." dropped. Right
	// when it equals the reference as a number (18.00 = 18).
	Number = "number"
	// Choice: the MMLU-Pro rule of TIGER-AI-Lab/MMLU-Pro evaluate_from_api.py (its
	// extract_answer, extract_again, extract_final), after its removal of "**": the
	// letter of the first "answer is (X)", else of a \boxed{X}, else of the first line
	// with "Answer: X", else the last standalone letter A–J. Right when it is the
	// reference letter.
	Choice = "choice"
	// Regex: the reference is a regular expression (RE2 syntax); its first match in
	// the response is the answer, right when there is one.
	Regex = "regex"
	// Exact: the response, blanks around it dropped, is the answer; right when it is
	// the reference exactly.
	Exact = "exact"
)

// Scorers lists the scorers a custom set may name.
func Scorers() []string { return []string{Number, Choice, Regex, Exact} }

// Response is what the server answered one item: its content, the reasoning it sent
// apart (reasoning_content), its completion tokens and finish reason.
type Response struct {
	Content          string `json:"content"`
	Reasoning        string `json:"reasoning_content,omitempty"`
	CompletionTokens int    `json:"completion_tokens"`
	Finish           string `json:"finish_reason,omitempty"`
}

// Final is the part of a response that holds the answer, and whether a reasoning block
// came before it: the text after the last </think> (DeepSeek-R1, Qwen3 and others
// write their reasoning inline), the whole content when the server sent the reasoning
// apart. A <think> never closed (the answer was cut off at max_tokens) leaves no
// answer.
func Final(r Response) (text string, reasoning bool) {
	reasoning = strings.TrimSpace(r.Reasoning) != ""
	c := r.Content
	if i := strings.LastIndex(c, "</think>"); i >= 0 {
		return c[i+len("</think>"):], true
	}
	if strings.Contains(c, "<think>") {
		return "", true
	}
	return c, reasoning
}

var (
	strictNumber   = regexp.MustCompile(`#### (\-?[0-9\.\,]+)`)
	flexibleNumber = regexp.MustCompile(`(-?[$0-9.,]{2,})|(-?[0-9]+)`)
	plainNumber    = regexp.MustCompile(`^-?(\d+\.?\d*|\.\d+)$`)

	choiceAnswerIs = regexp.MustCompile(`answer is \(?([A-J])\)?`)
	choiceLine     = regexp.MustCompile(`.*[aA]nswer:\s*([A-J])`)
	choiceLetter   = regexp.MustCompile(`\b[A-J]\b`)
	boxedLetter    = regexp.MustCompile(`^\(?([A-J])\)?(?:[.:]|\s|$)`)
	latexText      = regexp.MustCompile(`\\text(?:bf)?\{([^{}]*)\}`)
)

// Extract takes the answer out of text (the Final part of a response) by scorer's
// rule; "" when there is none. pattern is a regex scorer's expression.
func Extract(scorer, text, pattern string) string {
	switch scorer {
	case Number:
		return extractNumber(text)
	case Choice:
		return extractChoice(text)
	case Regex:
		re, err := regexp.Compile(pattern)
		if err != nil {
			return ""
		}
		return re.FindString(text)
	default:
		return strings.TrimSpace(text)
	}
}

func extractNumber(text string) string {
	if m := strictNumber.FindStringSubmatch(text); m != nil {
		return normalizeNumber(m[1])
	}
	if b, ok := lastBoxed(text); ok {
		// LaTeX inside the box: \$1{,}200 is $1,200.
		text = strings.NewReplacer("{", "", "}", "", `\`, "").Replace(b)
	}
	ms := flexibleNumber.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return ""
	}
	last := ms[len(ms)-1]
	if last[1] != "" {
		return normalizeNumber(last[1])
	}
	return normalizeNumber(last[2])
}

// normalizeNumber drops what lm-evaluation-harness's regexes_to_ignore drop: commas,
// "$" and a trailing ".".
func normalizeNumber(s string) string {
	s = strings.NewReplacer(",", "", "$", "").Replace(strings.TrimSpace(s))
	return strings.TrimSuffix(s, ".")
}

func extractChoice(text string) string {
	text = strings.ReplaceAll(text, "**", "")
	if m := choiceAnswerIs.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	if b, ok := lastBoxed(text); ok {
		b = latexText.ReplaceAllString(b, "$1")
		if m := boxedLetter.FindStringSubmatch(strings.TrimSpace(b)); m != nil {
			return m[1]
		}
	}
	// Python's re.search of .*[aA]nswer:\s*([A-J]) without DOTALL: the first line that
	// matches, its last "Answer:" (the greedy .*).
	for _, line := range strings.Split(text, "\n") {
		if m := choiceLine.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	if ms := choiceLetter.FindAllString(text, -1); len(ms) > 0 {
		return ms[len(ms)-1]
	}
	return ""
}

// lastBoxed is the content of the last \boxed{…} in s, braces balanced.
func lastBoxed(s string) (string, bool) {
	i := strings.LastIndex(s, `\boxed{`)
	if i < 0 {
		return "", false
	}
	start := i + len(`\boxed{`)
	depth := 1
	for j := start; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[start:j], true
			}
		}
	}
	return "", false
}

// Correct says whether answer (from Extract) is right against the item's reference.
func Correct(scorer, expected, answer string) bool {
	if answer == "" {
		return false
	}
	switch scorer {
	case Number:
		a, okA := parseNumber(answer)
		e, okE := parseNumber(normalizeNumber(expected))
		return okA && okE && a.Cmp(e) == 0
	case Choice:
		return strings.EqualFold(answer, strings.TrimSpace(expected))
	case Regex:
		return true // Extract found a match of the reference pattern
	default:
		return answer == strings.TrimSpace(expected)
	}
}

func parseNumber(s string) (*big.Rat, bool) {
	if !plainNumber.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}
