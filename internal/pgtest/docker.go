package pgtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// postgresImage is the server image started when Docker is available.
const postgresImage = "postgres:17-alpine"

// startContainer starts a PostgreSQL container for the life of the test
// binary (testcontainers' reaper removes it afterwards) and returns the URL
// of its "postgres" database. It fails fast when no Docker daemon answers.
func startContainer(ctx context.Context) (u string, err error) {
	defer func() {
		// testcontainers panics on some broken Docker setups.
		if r := recover(); r != nil {
			err = fmt.Errorf("docker unusable: %v", r)
		}
	}()
	provider, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return "", fmt.Errorf("no docker: %w", err)
	}
	defer provider.Close()
	if err := provider.Health(ctx); err != nil {
		return "", errors.New("no Docker daemon answers")
	}
	c, err := tcpostgres.Run(ctx, postgresImage,
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		return "", fmt.Errorf("start container: %w", err)
	}
	return c.ConnectionString(ctx, "sslmode=disable")
}
