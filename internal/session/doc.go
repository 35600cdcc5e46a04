// Package session owns one run of llmbench as a library: Open reads the run to resume
// or makes a new document from a Config (plain data the command line's flags map
// to), starts the built-in emulator or the --launch server, probes the server and
// checks the model, plans the run against the server's limits (shrunk with --fit,
// refused when it cannot run), describes the hardware, starts the power meter and
// prices the machine, and writes the pending document; Run measures the client's
// ceiling and runs the closed or open loop (bench measures); Close releases what
// Open started. What the session reports goes to an Observer. The texts a run
// prints around the measurement (the dry run's plan, the command that resumes it,
// the next commands) are built here too; the command line prints them.
package session
