package main

import (
	"context"
	"errors"
)

func runAudit(ctx context.Context, args []string, e env) error {
	return errors.New("audit: not built yet")
}
