// Package purity holds the test that keeps registryd's pure packages (addon,
// envpolicy, assess, report, safetext) free of network, database,
// filesystem, process, clock and randomness access, and its leaf packages
// (safetext) free of dependencies beyond the standard library and the
// modules allowed them. It has no code of its own.
package purity
