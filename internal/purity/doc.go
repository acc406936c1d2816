// Package purity holds the test that keeps registryd's pure packages (addon,
// envpolicy, assess, report) free of network, database, filesystem, process,
// clock and randomness access. It has no code of its own.
package purity
