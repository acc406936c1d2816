package ghingest_test

import (
	"testing"

	"github.com/registryd/registryd/ghingest"
	"github.com/registryd/registryd/jobs"
)

// A job still running past jobs.StuckAfter is run again by another
// worker, so a delivery job must always end well before that.
func TestJobTimeoutBelowStuckJobRescue(t *testing.T) {
	if ghingest.DefaultJobTimeout >= jobs.StuckAfter {
		t.Fatalf("DefaultJobTimeout %v must stay below jobs.StuckAfter %v", ghingest.DefaultJobTimeout, jobs.StuckAfter)
	}
}
