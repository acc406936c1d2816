// Package leanctx reads lean-ctx's bundled addon registry file into
// submissions, and writes registryd's published addons back in the same
// format, so that a lean-ctx build can ship registryd's curated list.
//
// The file is lean-ctx's `{"$schema": …, "registry_version": 1, "addons":
// [ … ]}` with one manifest in its JSON form per entry. registryd needs a
// SemVer version where lean-ctx allows none: an entry without a version is
// imported as version 0.0.0 (its upstream version, recorded with the
// submission, stays empty), and is exported without one again.
package leanctx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// Unversioned is the version an entry without one is imported as.
const Unversioned = "0.0.0"

// batchSize is how many entries one transaction imports.
const batchSize = 100

// Importer is the part of the workflow an import uses.
type Importer interface {
	Import(ctx context.Context, a workflow.Actor, source registry.Source, items []workflow.ImportItem) ([]workflow.ImportResult, error)
}

// Skip is an entry that was not imported, and why (safe to print).
type Skip struct {
	Entry  int // index in the file's addons
	Name   string
	Reason string
}

// Summary is what an import did.
type Summary struct {
	Entries, Created, Existing int
	Skips                      []Skip
}

// Import submits every entry of a lean-ctx registry file (source
// registry.SourceLeanCtx, the upstream named origin, usually the file's
// name) as a pending submission. An entry registryd refuses is skipped and
// reported; the file as a whole must be a registry file. Importing the same
// file again creates nothing new (workflow.Import).
func Import(ctx context.Context, wf Importer, a workflow.Actor, file []byte, origin string) (Summary, error) {
	var sum Summary
	if len(file) > addon.MaxRegistryFileBytes {
		return sum, fmt.Errorf("the registry file is larger than %d bytes", addon.MaxRegistryFileBytes)
	}
	var top struct {
		Schema          string            `json:"$schema"`
		RegistryVersion int               `json:"registry_version"`
		Addons          []json.RawMessage `json:"addons"`
	}
	dec := json.NewDecoder(bytes.NewReader(file))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		return sum, errors.New("not a lean-ctx registry file: want {\"$schema\", \"registry_version\": 1, \"addons\": […]}")
	}
	if top.RegistryVersion != 1 {
		return sum, errors.New("registry_version: must be 1 (the only registry format registryd reads)")
	}
	if len(top.Addons) > addon.MaxRegistryEntries {
		return sum, fmt.Errorf("addons: more than %d entries", addon.MaxRegistryEntries)
	}
	sum.Entries = len(top.Addons)
	var items []workflow.ImportItem
	var index []int
	flush := func() error {
		if len(items) == 0 {
			return nil
		}
		res, err := wf.Import(ctx, a, registry.SourceLeanCtx, items)
		if err != nil {
			return err
		}
		for i, r := range res {
			switch {
			case r.Err != nil:
				sum.skip(index[i], items[i].Upstream.Name, reason(r.Err))
			case r.Created:
				sum.Created++
			default:
				sum.Existing++
			}
		}
		items, index = items[:0], index[:0]
		return nil
	}
	for i, raw := range top.Addons {
		m, err := addon.ParseJSON(raw)
		if err != nil {
			sum.skip(i, "", reason(err))
			continue
		}
		version := m.Addon.Version
		if version == "" {
			m.Addon.Version = Unversioned
		}
		items = append(items, workflow.ImportItem{
			Manifest: addon.EncodeJSON(m),
			Upstream: registry.UpstreamOrigin{URL: origin, Name: m.Addon.Name, Version: version},
		})
		index = append(index, i)
		if len(items) == batchSize {
			if err := flush(); err != nil {
				return sum, err
			}
		}
	}
	return sum, flush()
}

func (s *Summary) skip(i int, name, why string) {
	s.Skips = append(s.Skips, Skip{Entry: i, Name: name, Reason: why})
}

// reason is a refusal on one line, safe to print.
func reason(err error) string {
	var ve *registry.ValidationError
	if errors.As(err, &ve) {
		var b bytes.Buffer
		for i, f := range ve.Fields {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.String())
		}
		return b.String()
	}
	return err.Error()
}

// Export returns the published addons that are not removed, each at its
// latest version, as a lean-ctx registry file in name order: the manifest
// as it was published, with `verified` true only where two maintainers
// verified the wiring of that version (the registry's tier, never the
// manifest's claim), and the version of an entry imported without one
// left empty again.
func Export(ctx context.Context, r storage.Reader) ([]byte, error) {
	var ms []*addon.Manifest
	cursor := ""
	for {
		as, next, err := r.Addons(ctx, storage.AddonFilter{}, storage.Page{Cursor: cursor, Limit: storage.MaxLimit})
		if err != nil {
			return nil, fmt.Errorf("list addons: %w", err)
		}
		for _, a := range as {
			m, err := latest(ctx, r, a)
			if err != nil {
				return nil, err
			}
			ms = append(ms, m)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return addon.EncodeRegistryFile(ms), nil
}

// latest returns addon a's latest published manifest as exported.
func latest(ctx context.Context, r storage.Reader, a registry.Addon) (*addon.Manifest, error) {
	v, err := r.Version(ctx, a.Name, a.LatestVersion)
	if err != nil {
		return nil, fmt.Errorf("load %s@%s: %w", a.Name, a.LatestVersion, err)
	}
	sub, err := r.Submission(ctx, v.SubmissionID)
	if err != nil {
		return nil, fmt.Errorf("load the submission of %s@%s: %w", a.Name, a.LatestVersion, err)
	}
	var m *addon.Manifest
	if sub.Format == string(workflow.FormatJSON) {
		m, err = addon.ParseJSON(sub.Manifest)
	} else {
		m, err = addon.ParseTOML(sub.Manifest)
	}
	if err != nil {
		return nil, fmt.Errorf("decode the manifest of %s@%s: %w", a.Name, strconv.Quote(a.LatestVersion), err)
	}
	m.Addon.Verified = a.TierFor(v.WiringSHA256) == registry.TierVerified
	if sub.Source == registry.SourceLeanCtx && sub.Upstream != nil && sub.Upstream.Version == "" && m.Addon.Version == Unversioned {
		m.Addon.Version = ""
	}
	return m, nil
}
