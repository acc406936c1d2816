package workflow_test

import (
	"testing"

	"github.com/registryd/registryd/storage"
)

// backends lists the store implementations the tests run against.
func backends() []backend {
	return []backend{
		{"memory", func(t *testing.T) storage.Store { return newMemStore() }},
	}
}
