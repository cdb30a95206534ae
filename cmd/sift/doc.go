// Command sift is the command-line interface to sift's constraint engine,
// node selection and benchmark harness. It is thin: every subcommand parses
// its flags, calls the library, and prints; it has no logic of its own.
package main
