// Package accuracy owns the scoring of an evaluation: the answer extracted from a
// server's response (the rules of the reference implementations: the GSM8K number,
// the MMLU-Pro letter, a regular expression, an exact string; reasoning blocks and
// \boxed{} answers), whether it is right, the figures of a set (accuracy with its
// Wilson 95% interval, per category, completion tokens per item) and the paired A/B
// comparison of two runs over the same items (delta with Newcombe's interval, flips,
// exact McNemar p).
//
// Everything here is pure: a live llmbench eval, a re-score from the stored raw
// answers (llmbench eval --rescore), the report and the site all score through these
// functions, so they agree to the last digit. It imports only rundoc and stats.
package accuracy
