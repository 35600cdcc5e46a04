package main

import (
	"embed"
	"strings"
)

// The commands' long help and examples are text files in help/, named by the command
// (a subcommand joins its parents with "-"): prose and examples read better outside Go
// strings, and TestHelpExamplesRun runs every example line they hold.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpLong is the long description of the command named key (help/KEY.txt).
func helpLong(key string) string { return helpText(key + ".txt") }

// helpExamples is the Example block of the command named key (help/KEY.examples.txt).
func helpExamples(key string) string { return helpText(key + ".examples.txt") }

func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name)
	if err != nil {
		panic("llmbench: missing help file " + name) // a build without the file is broken
	}
	return strings.TrimSuffix(string(b), "\n")
}
