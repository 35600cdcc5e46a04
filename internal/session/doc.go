// Package session owns what a run does beside measuring: the run document filled from
// what the server and the machine said (engine, model, hardware, title, file name),
// the plan checked against the server's limits (shrunk with --fit, refused when it
// cannot run), how the server counts tokens, and whether a resumed run is on the
// server it began on. The command line maps flags to these; bench measures.
package session
