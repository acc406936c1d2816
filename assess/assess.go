// Package assess is registryd's audit: pure, deterministic functions that turn
// a decoded manifest into findings. No I/O, no clock, no environment.
package assess

import (
	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
)

// Ruleset is the version of the rules. Any change to what the rules find, to
// a level, a code, a message or a path changes it, and every stored report is
// then re-assessed.
const Ruleset = "2026.11.0"

// Inferred is what the wiring was found to use, whatever the manifest
// declares.
type Inferred struct {
	Network bool
	Exec    bool
}

// Result is the outcome of one audit.
type Result struct {
	// Findings in total order: level descending, then code, path, message.
	Findings []registry.Finding
	Inferred Inferred
}

// Audit runs every rule over m. It is safe for concurrent use and returns the
// same result for the same manifest every time.
func Audit(m *addon.Manifest) Result {
	return Result{Findings: []registry.Finding{}}
}

// Rules returns the rule table, one entry per code, ordered by code. The
// caller may modify the returned slice.
func Rules() []registry.Rule {
	return nil
}
