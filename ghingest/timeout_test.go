package ghingest_test

import (
	"testing"

	"github.com/registryd/registryd/ghingest"
	"github.com/registryd/registryd/storage"
)

// A job still running past storage.StuckJobAfter is run again by another
// worker, so a delivery job must always end well before that.
func TestJobTimeoutBelowStuckJobRescue(t *testing.T) {
	if ghingest.DefaultJobTimeout >= storage.StuckJobAfter {
		t.Fatalf("DefaultJobTimeout %v must stay below storage.StuckJobAfter %v", ghingest.DefaultJobTimeout, storage.StuckJobAfter)
	}
}
