package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
)

// ImportItem is one manifest read from an upstream registry, in its JSON
// form, with where it came from.
type ImportItem struct {
	Manifest []byte
	Upstream registry.UpstreamOrigin
}

// ImportResult is what Import made of one item: the submission it created
// (Created) or the one the same upstream version made before, or Err when
// the item was refused (a *registry.ValidationError for a manifest
// registryd refuses, registry.ErrConflict for a version published with
// other bytes or an addon name another upstream server or another author
// holds). Err is safe to print.
type ImportResult struct {
	Submission registry.Submission
	Created    bool
	Err        error
}

// Bounds of an upstream origin.
const (
	MaxUpstreamURLBytes     = 2048
	MaxUpstreamNameBytes    = 200
	MaxUpstreamVersionBytes = 255
)

// Import submits manifests read from an upstream registry (source
// registry.SourceMCPRegistry or registry.SourceLeanCtx) as pending
// submissions, all of items in one transaction: each is decoded, audited
// and stored as Submit does, with its upstream origin, and an audit-log
// entry "submission.import". a names the importer (the submitter of every
// submission); imports are run by the operator, so no token role is asked.
//
// Importing is idempotent: an MCP Registry server version imported before
// (whatever became of its submission) and a lean-ctx entry whose name,
// version and bytes were imported before give that submission back with
// Created false, and nothing is stored.
//
// An MCP Registry import binds the addon to the upstream server name
// (registry.UpstreamBinding): an item is refused with registry.ErrConflict
// when its addon is bound to another upstream name, or exists without
// having been imported from this one.
//
// An item that is refused does not stop the others: its result carries the
// error and nothing of it is stored. The error returned is the database's
// (or a refused source), and then nothing of any item is stored.
func (s *Service) Import(ctx context.Context, a Actor, source registry.Source, items []ImportItem) ([]ImportResult, error) {
	if a.Name == "" {
		return nil, fmt.Errorf("%w: no actor", registry.ErrUnauthenticated)
	}
	if !source.Imported() {
		return nil, fmt.Errorf("%w: %q is not an import source", registry.ErrInvalid, source)
	}
	type parsed struct {
		i   int
		res rendered
		sha string
	}
	results := make([]ImportResult, len(items))
	var ok []parsed
	for i, it := range items {
		if err := checkUpstream(it.Upstream); err != nil {
			results[i].Err = err
			continue
		}
		m, err := parseSubmission(it.Manifest, FormatJSON, nil)
		if err != nil {
			results[i].Err = err
			continue
		}
		ok = append(ok, parsed{i: i, res: rendered{parsed: m}, sha: report.SHA256(it.Manifest)})
	}
	now := s.clock()
	out := make([]ImportResult, len(items))
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		copy(out, results)
		for _, p := range ok {
			it, m := items[p.i], p.res.parsed
			prior, found, err := importedBefore(ctx, tx, source, it.Upstream, p.sha)
			if err != nil {
				return err
			}
			if found {
				out[p.i] = ImportResult{Submission: prior}
				continue
			}
			st, err := loadState(ctx, tx, m.Addon.Name)
			if err != nil {
				return err
			}
			if source == registry.SourceMCPRegistry {
				refused, err := bindUpstream(ctx, tx, m.Addon.Name, it.Upstream.Name, st.exists, now)
				if err != nil {
					return err
				}
				if refused != "" {
					out[p.i].Err = conflict("%s", refused)
					continue
				}
			}
			if st.exists {
				// Only an addon that exists has published versions.
				pub, found, err := sameBytes(ctx, tx, m.Addon.Name, m.Addon.Version, p.sha)
				if errors.Is(err, registry.ErrConflict) {
					out[p.i].Err = err
					continue
				}
				if err != nil {
					return err
				}
				if found {
					out[p.i] = ImportResult{Submission: pub}
					continue
				}
			}
			r, err := renderParsed(it.Manifest, m, st, now)
			if err != nil {
				return err
			}
			sub := s.newSubmission(a, it.Manifest, p.sha, FormatJSON, nil, m, r, now)
			up := it.Upstream
			sub.Source, sub.Upstream, sub.SubmitterToken, sub.SubmitterPrincipal = source, &up, "", ""
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return fmt.Errorf("store submission: %w", err)
			}
			rep, fs := r.stored(sub.ID)
			if err := tx.PutReport(ctx, rep, fs); err != nil {
				return fmt.Errorf("store report: %w", err)
			}
			if err := s.audit(ctx, tx, now, a.Name, "submission.import", "submission/"+sub.ID, "", importDetail(sub)); err != nil {
				return err
			}
			out[p.i] = ImportResult{Submission: sub, Created: true}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import %d manifests from %s: %w", len(items), source, err)
	}
	return out, nil
}

// RecordSync advances the import's high-water mark for the upstream
// registry at url to mark, unless it is there or later already.
func (s *Service) RecordSync(ctx context.Context, url string, mark time.Time) error {
	now := s.clock()
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		prev, err := tx.UpstreamSync(ctx, url)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return err
		}
		if err == nil && !mark.After(prev.HighWater) {
			return nil
		}
		return tx.PutUpstreamSync(ctx, registry.UpstreamSync{URL: url, HighWater: mark.UTC().Truncate(time.Microsecond), UpdatedAt: now})
	})
	if err != nil {
		return fmt.Errorf("record the sync of %q: %w", url, err)
	}
	return nil
}

// checkUpstream bounds an upstream origin and refuses characters that
// could attack a terminal or a page.
func checkUpstream(u registry.UpstreamOrigin) error {
	var fs fields
	fs.text("upstream.url", u.URL, MaxUpstreamURLBytes, true)
	fs.text("upstream.name", u.Name, MaxUpstreamNameBytes, true)
	fs.text("upstream.version", u.Version, MaxUpstreamVersionBytes, false)
	return fs.err()
}

// importedBefore finds the submission an earlier import made of the same
// upstream version: any for an MCP Registry (its versions are immutable),
// the one with the same bytes for a lean-ctx file (whose entries change
// without a new version).
func importedBefore(ctx context.Context, tx storage.Tx, source registry.Source, u registry.UpstreamOrigin, sha string) (registry.Submission, bool, error) {
	subs, err := tx.SubmissionsByUpstream(ctx, source, u.Name, u.Version)
	if err != nil {
		return registry.Submission{}, false, fmt.Errorf("look up earlier imports: %w", err)
	}
	for _, sub := range subs {
		if source == registry.SourceMCPRegistry || sub.ManifestSHA256 == sha {
			return sub, true, nil
		}
	}
	return registry.Submission{}, false, nil
}

// bindUpstream binds addon to the upstream server name, or says why it may
// not (a message safe to print): the addon is bound to another upstream
// server, the upstream server to another addon, or the addon exists
// (exists) without having been imported from it. Names in the message are
// an addon name and a server name, both checked for safe characters.
func bindUpstream(ctx context.Context, tx storage.Tx, addonName, upstream string, exists bool, now time.Time) (string, error) {
	bs, err := tx.UpstreamBindings(ctx, addonName, upstream)
	if err != nil {
		return "", fmt.Errorf("look up the bindings of %q: %w", addonName, err)
	}
	for _, b := range bs {
		switch {
		case b.Addon == addonName && b.Name == upstream:
			return "", nil
		case b.Name == upstream:
			return fmt.Sprintf("the upstream server is bound to the addon %q", b.Addon), nil
		default:
			return fmt.Sprintf("the addon %q is bound to the upstream server %q", addonName, b.Name), nil
		}
	}
	if exists {
		return fmt.Sprintf("the addon %q exists and was not imported from this upstream server", addonName), nil
	}
	if err := tx.BindUpstream(ctx, registry.UpstreamBinding{Addon: addonName, Source: registry.SourceMCPRegistry, Name: upstream, CreatedAt: now}); err != nil {
		return "", fmt.Errorf("bind %q: %w", addonName, err)
	}
	return "", nil
}

// importDetail is the audit detail of an import.
func importDetail(sub registry.Submission) string {
	b, _ := json.Marshal(map[string]string{"addon": sub.Addon, "version": sub.Version, "manifest_sha256": sub.ManifestSHA256,
		"source": string(sub.Source), "upstream_url": sub.Upstream.URL, "upstream_name": sub.Upstream.Name, "upstream_version": sub.Upstream.Version})
	return string(b)
}
