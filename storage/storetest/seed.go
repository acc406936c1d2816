package storetest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// SeedLog fills the empty log of s with n leaves, for tests that need a
// log larger than publishing can build in their time (publishing signs an
// envelope and writes a version's rows per leaf: 65,536 leaves take a
// minute or more). It writes the tables as the store's append does (each
// leaf's row and every node completed, in log_nodes; the head's size and
// root) straight into the database of a SQLite or PostgreSQL store, then
// has the store sign the checkpoint. The leaves are of addons seed-0,
// seed-1, … that the registry does not hold; it returns them in order.
func SeedLog(t testing.TB, s storage.Store, n int) []transparency.Leaf {
	t.Helper()
	ctx := context.Background()
	leaves := make([]transparency.Leaf, n)
	rows := make([][]any, 0, 2*n)
	rng := tileRanges.NewEmptyRange(0)
	for i := range leaves {
		sum := func(what string) string {
			h := sha256.Sum256(fmt.Appendf(nil, "%s %d", what, i))
			return hex.EncodeToString(h[:])
		}
		leaves[i] = transparency.Leaf{Addon: fmt.Sprintf("seed-%d", i), Version: "1.0.0", ManifestSHA256: sum("manifest"), ReportSHA256: sum("report")}
		text := leaves[i].Marshal()
		err := rng.Append(rfc6962.DefaultHasher.HashLeaf(text), func(id compact.NodeID, hash []byte) {
			key := int64(id.Index<<(id.Level+1) + (1 << id.Level) - 1)
			if id.Level == 0 {
				rows = append(rows, []any{key, hash, fmt.Sprintf("seed-%d", i), text})
			} else {
				rows = append(rows, []any{key, hash, nil, nil})
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	root, err := rng.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	switch db := s.(type) {
	case interface{ DB() *sql.DB }:
		err = seedSQLite(ctx, db.DB(), rows, int64(n), root)
	case interface{ Pool() *pgxpool.Pool }:
		err = seedPostgres(ctx, db.Pool(), rows, int64(n), root)
	default:
		t.Fatalf("seed log: a store of type %T is neither SQLite nor PostgreSQL", s)
	}
	if err != nil {
		t.Fatalf("seed log: %v", err)
	}
	if _, err := s.RefreshCheckpoint(ctx, -time.Hour); err != nil {
		t.Fatalf("seed log: sign checkpoint: %v", err)
	}
	return leaves
}

func seedSQLite(ctx context.Context, db *sql.DB, rows [][]any, size int64, root []byte) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var was int64
	if err := tx.QueryRowContext(ctx, `SELECT size FROM log_head WHERE id = 1`).Scan(&was); err != nil || was != 0 {
		return fmt.Errorf("the log is not empty (size %d, %v)", was, err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO log_nodes (id, hash, submission_id, leaf) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := ins.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE log_head SET size = ?, root = ? WHERE id = 1`, size, root); err != nil {
		return err
	}
	return tx.Commit()
}

func seedPostgres(ctx context.Context, pool *pgxpool.Pool, rows [][]any, size int64, root []byte) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var was int64
		if err := tx.QueryRow(ctx, `SELECT size FROM log_head WHERE id = 1 FOR UPDATE`).Scan(&was); err != nil || was != 0 {
			return fmt.Errorf("the log is not empty (size %d, %v)", was, err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"log_nodes"}, []string{"id", "hash", "submission_id", "leaf"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE log_head SET size = $1, root = $2 WHERE id = 1`, size, root)
		return err
	})
}
