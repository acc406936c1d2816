package migrations_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"
	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/transparency"
)

// TestLogOneTable stores a transparency log the way registryd did before
// migration 00021 (leaves in log_leaves, found by submission through its
// index), migrates to the latest version, and checks on both dialects that
// the store serves the same log: each version's current leaf (one version
// logged twice) with an inclusion proof that verifies against the stored
// checkpoint, the same entries and tiles, the same envelopes byte for
// byte; and that the log grows from there.
func TestLogOneTable(t *testing.T) {
	_, skey, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	eachDialect(t, func(t *testing.T, d oldDB) {
		db := d.open()
		defer db.Close()
		old := fillBeforeLogTable(t, d.dialect, db, d.fsys, skey)
		db.Close()
		cfg := d.cfg
		cfg.Signing = storage.Signing{Signers: []*transparency.Signer{skey}}
		checkLogTable(t, cfg, old)
	})
}

func generate() (string, *transparency.Signer, error) {
	sk, vk, err := transparency.GenerateKey(rand.Reader, "registry.example")
	if err != nil {
		return "", nil, err
	}
	s, err := transparency.ParseSigner(sk)
	return vk, s, err
}

// oldLog is what fillBeforeLogTable stored.
type oldLog struct {
	leaves    [][]byte          // in log order
	current   map[string]uint64 // version → index of its current leaf
	envelopes map[string][]byte // version → stored envelope
	reports   map[string][]byte // version → report bytes
	root      []byte
}

// fillBeforeLogTable migrates db to version 20 and stores three published
// versions of addon weather with signed reports and a log of five leaves:
// 1.0.0's report, 2.0.0's, 3.0.0's, 1.0.0's again (rendered anew) and
// 3.0.0's again, with every node, the head and its signed checkpoint.
func fillBeforeLogTable(t *testing.T, dialect goose.Dialect, db *sql.DB, fsys fs.FS, signer *transparency.Signer) oldLog {
	t.Helper()
	ctx := context.Background()
	upTo(t, dialect, db, fsys, 20)
	bind := func(q string) string {
		if dialect == goose.DialectPostgres {
			return strings.ReplaceAll(q, "?", "$")
		}
		return q
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, bind(q), args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	at := any(int64(1e15))
	if dialect == goose.DialectPostgres {
		at = "2026-01-01T00:00:00Z"
	}
	hexSum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	old := oldLog{current: map[string]uint64{}, envelopes: map[string][]byte{}, reports: map[string][]byte{}}
	exec(`INSERT INTO addons (name, display_name, description, latest_version, latest_verdict, created_at, updated_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, "weather", "weather", "A tool.", "3.0.0", "pass", at, at)
	manifests := map[string]string{}
	for i, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		id := "sub_" + v
		m := []byte("[addon]\nname = \"weather\"\nversion = \"" + v + "\"\n")
		manifests[v] = hexSum(m)
		exec(`INSERT INTO submissions (id, addon, version, manifest, manifest_sha256, format, source, status, verdict, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`, id, "weather", v, m, manifests[v], "toml", "rest", "approved", "pass", at, at)
		exec(`INSERT INTO versions (addon, version, version_key, submission_id, published_at) VALUES (?1, ?2, ?3, ?4, ?5)`,
			"weather", v, v, id, at)
		_ = i
	}
	rng := (&compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}).NewEmptyRange(0)
	for i, v := range []string{"1.0.0", "2.0.0", "3.0.0", "1.0.0", "3.0.0"} {
		id := "sub_" + v
		report := []byte(`{"addon":"weather","version":"` + v + `","render":` + string(rune('0'+i)) + `}`)
		env, err := transparency.SignEnvelope(report, signer)
		if err != nil {
			t.Fatal(err)
		}
		exec(`DELETE FROM reports WHERE submission_id = ?1`, id)
		exec(`INSERT INTO reports (submission_id, bytes, sha256, ruleset, envelope, envelope_sha256, envelope_keys)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, id, report, hexSum(report), "2026.12.1", env, hexSum(env), signer.Verifier().ID)
		leaf := transparency.Leaf{Addon: "weather", Version: v, ManifestSHA256: manifests[v], ReportSHA256: hexSum(report)}.Marshal()
		exec(`INSERT INTO log_leaves (idx, submission_id, leaf) VALUES (?1, ?2, ?3)`, int64(i), id, leaf)
		err = rng.Append(rfc6962.DefaultHasher.HashLeaf(leaf), func(n compact.NodeID, h []byte) {
			key := int64(n.Index<<(n.Level+1) + (1 << n.Level) - 1)
			exec(`INSERT INTO log_nodes (id, hash) VALUES (?1, ?2)`, key, h)
		})
		if err != nil {
			t.Fatal(err)
		}
		old.leaves = append(old.leaves, leaf)
		old.current[v] = uint64(i)
		old.envelopes[v] = env
		old.reports[v] = report
	}
	root, err := rng.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	old.root = root
	cp, err := transparency.SignCheckpoint(transparency.Checkpoint{
		Checkpoint: log.Checkpoint{Origin: signer.Name(), Size: rng.End(), Hash: root}, Timestamp: 1e9,
	}, signer)
	if err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE log_head SET size = ?1, root = ?2, checkpoint = ?3, signed_at = ?4, signed_by = ?5 WHERE id = 1`,
		int64(rng.End()), root, cp, at, signer.Verifier().ID)
	return old
}

func checkLogTable(t *testing.T, cfg storage.Config, old oldLog) {
	ctx := context.Background()
	s, err := backend.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(old oldLog) {
		t.Helper()
		for v, idx := range old.current {
			p, err := s.InclusionProof(ctx, "weather", v)
			if err != nil {
				t.Fatalf("inclusion proof of %s: %v", v, err)
			}
			if p.LeafIndex != idx || p.TreeSize != uint64(len(old.leaves)) || !bytes.Equal(p.Leaf, old.leaves[idx]) {
				t.Errorf("proof of %s: leaf %d of %d %q, want leaf %d of %d %q", v, p.LeafIndex, p.TreeSize, p.Leaf, idx, len(old.leaves), old.leaves[idx])
			}
			if err := transparency.VerifyInclusion(p.Leaf, p.LeafIndex, p.TreeSize, p.Hashes, old.root); err != nil {
				t.Errorf("proof of %s does not verify against the root: %v", v, err)
			}
			env, err := s.PublishedEnvelope(ctx, "weather", v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(env.Bytes, old.envelopes[v]) {
				t.Errorf("envelope of %s changed:\n%s\nwant\n%s", v, env.Bytes, old.envelopes[v])
			}
		}
		entries, err := s.LogEntries(ctx, 0, len(old.leaves))
		if err != nil {
			t.Fatal(err)
		}
		tile, err := s.LogTile(ctx, 0, 0, len(old.leaves))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range old.leaves {
			if !bytes.Equal(entries[i], l) {
				t.Errorf("entry %d = %q, want %q", i, entries[i], l)
			}
			if h := rfc6962.DefaultHasher.HashLeaf(l); !bytes.Equal(tile[32*i:32*i+32], h) {
				t.Errorf("tile hash %d is not the leaf's", i)
			}
		}
		cp, err := s.Checkpoint(ctx)
		if err != nil || cp.Size != uint64(len(old.leaves)) || !bytes.Equal(cp.Root, old.root) {
			t.Fatalf("checkpoint = %d %x, %v; want %d %x", cp.Size, cp.Root, err, len(old.leaves), old.root)
		}
	}
	check(old)

	// 2.0.0 rendered anew: its leaf is the sixth, and the log grows from
	// the migrated nodes.
	report := []byte(`{"addon":"weather","version":"2.0.0","render":5}`)
	sum := sha256.Sum256(report)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.PutReport(ctx, registry.Report{SubmissionID: "sub_2.0.0", Bytes: report, SHA256: hex.EncodeToString(sum[:]), Ruleset: "2026.12.1"}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.InclusionProof(ctx, "weather", "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	env, err := s.PublishedEnvelope(ctx, "weather", "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	rng := (&compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}).NewEmptyRange(0)
	for _, l := range append(old.leaves, p.Leaf) {
		if err := rng.Append(rfc6962.DefaultHasher.HashLeaf(l), nil); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := rng.GetRootHash(nil)
	old.leaves = append(old.leaves, p.Leaf)
	old.current["2.0.0"] = 5
	old.envelopes["2.0.0"] = env.Bytes
	old.root = root
	check(old)
}
