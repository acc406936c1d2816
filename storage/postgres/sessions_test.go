package postgres_test

import (
	"testing"

	"github.com/registryd/registryd/storage/storetest"
)

func TestSessions(t *testing.T) {
	storetest.RunSessions(t, func(t *testing.T) storetest.SessionStore { return open(t) })
}
