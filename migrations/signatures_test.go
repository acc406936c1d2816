package migrations_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/transparency"
)

// TestEnvelopeSignatures stores signed reports the way registryd did before
// migration 00026 (each published report's whole envelope in its row),
// migrates to the latest version, and checks on both dialects that the
// store serves every envelope byte for byte as stored, the one signed by
// two keys included, with the sha256 of those bytes as its digest; that the
// keys that signed are kept (SignEnvelopes finds nothing to sign); that a
// pending submission's report still has none; and that a report stored
// after the migration is served with the envelope transparency.SignEnvelope
// writes for it.
func TestEnvelopeSignatures(t *testing.T) {
	_, a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	hexSum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	eachDialect(t, func(t *testing.T, d oldDB) {
		ctx := context.Background()
		db := d.open()
		defer db.Close()
		upTo(t, d.dialect, db, d.fsys, 25)
		exec := func(q string, args ...any) {
			t.Helper()
			if d.dialect == goose.DialectPostgres {
				q = strings.ReplaceAll(q, "?", "$")
			}
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		at := any(int64(1e15))
		if d.dialect == goose.DialectPostgres {
			at = "2026-01-01T00:00:00Z"
		}
		exec(`INSERT INTO addons (name, display_name, description, latest_version, latest_verdict, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, "weather", "weather", "A tool.", "2.0.0", "pass", at, at)
		envelopes := map[string][]byte{}
		for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
			id := "sub_" + v
			m := []byte("[addon]\nname = \"weather\"\nversion = \"" + v + "\"\n")
			status := "approved"
			if v == "3.0.0" {
				status = "pending"
			}
			exec(`INSERT INTO submissions (id, addon, version, manifest, manifest_sha256, format, source, status, verdict, created_at, updated_at)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`, id, "weather", v, m, hexSum(m), "toml", "rest", status, "pass", at, at)
			// A report holding every byte value, and quotes and
			// backslashes, so that base64 and JSON are both exercised.
			report := []byte(`{"addon":"weather","version":"` + v + `","raw":"\"\\"}`)
			for c := range 256 {
				report = append(report, byte(c))
			}
			if status == "pending" {
				exec(`INSERT INTO reports (submission_id, bytes, sha256, ruleset) VALUES (?1, ?2, ?3, ?4)`, id, report, hexSum(report), "2026.12.1")
				continue
			}
			exec(`INSERT INTO versions (addon, version, version_key, submission_id, published_at) VALUES (?1, ?2, ?3, ?4, ?5)`,
				"weather", v, v, id, at)
			signers := []*transparency.Signer{a}
			if v == "2.0.0" {
				signers = []*transparency.Signer{b, a} // during a rotation
			}
			env, err := transparency.SignEnvelope(report, signers...)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(signers))
			for i, s := range signers {
				ids[i] = s.Verifier().ID
			}
			exec(`INSERT INTO reports (submission_id, bytes, sha256, ruleset, envelope, envelope_sha256, envelope_keys)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, id, report, hexSum(report), "2026.12.1", env, hexSum(env), strings.Join(ids, ","))
			envelopes[v] = env
		}
		db.Close()

		cfg := d.cfg
		cfg.Signing = storage.Signing{Signers: []*transparency.Signer{a}}
		s, err := backend.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for v, want := range envelopes {
			env, err := s.PublishedEnvelope(ctx, "weather", v)
			if err != nil {
				t.Fatalf("envelope of %s: %v", v, err)
			}
			if !bytes.Equal(env.Bytes, want) || env.SHA256 != hexSum(want) {
				t.Errorf("envelope of %s = %s (digest %s), want as stored before the migration:\n%s (digest %s)", v, env.Bytes, env.SHA256, want, hexSum(want))
			}
			if sum, err := s.PublishedEnvelopeDigest(ctx, "weather", v); err != nil || sum != hexSum(want) {
				t.Errorf("envelope digest of %s = %s, %v; want %s", v, sum, err, hexSum(want))
			}
		}
		if _, err := s.PublishedEnvelope(ctx, "weather", "3.0.0"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("envelope of the pending 3.0.0: %v, want ErrNotFound", err)
		}
		if n, err := s.SignEnvelopes(ctx, 10); n != 0 || err != nil {
			t.Errorf("SignEnvelopes after the migration = %d, %v; want 0: every envelope has its keys", n, err)
		}

		report := []byte(`{"addon":"weather","version":"1.0.0","render":2}`)
		err = s.InTx(ctx, func(tx storage.Tx) error {
			return tx.PutReport(ctx, registry.Report{SubmissionID: "sub_1.0.0", Bytes: report, SHA256: hexSum(report), Ruleset: "2026.12.1"}, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := transparency.SignEnvelope(report, a)
		if err != nil {
			t.Fatal(err)
		}
		env, err := s.PublishedEnvelope(ctx, "weather", "1.0.0")
		if err != nil || !bytes.Equal(env.Bytes, want) || env.SHA256 != hexSum(want) {
			t.Errorf("envelope of a report stored after the migration = %s (digest %s), %v; want\n%s", env.Bytes, env.SHA256, err, want)
		}
	})
}
