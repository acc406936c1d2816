package client

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/safetext"
)

// maxNameLen bounds an addon name in a Ref; the registry's own bound is
// lower.
const maxNameLen = 256

// Ref names the report to verify: the latest published version of an
// addon (Name alone), one version (Name and Version), or the published
// version whose manifest has the SHA-256 ManifestSHA256 (64 lower-case hex
// digits; Name and Version empty). Build one with ParseRef or ManifestRef.
type Ref struct {
	Name           string
	Version        string
	ManifestSHA256 string
}

// ParseRef parses NAME or NAME@VERSION. The name must be non-empty and
// printable; the version, when present, a SemVer 2.0.0 version. Errors never
// echo s.
func ParseRef(s string) (Ref, error) {
	name, version, hasVersion := strings.Cut(s, "@")
	r := Ref{Name: name, Version: version}
	if hasVersion && version == "" {
		return Ref{}, errors.New("empty version after @")
	}
	if err := r.validate(); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// ManifestRef is the Ref of the published version whose manifest is
// exactly these bytes.
func ManifestRef(manifest []byte) Ref {
	sum := sha256.Sum256(manifest)
	return Ref{ManifestSHA256: hex.EncodeToString(sum[:])}
}

// String is the Ref as a person would write it: NAME, NAME@VERSION or
// sha256:HEX. Unsafe characters are replaced, so it can be printed.
func (r Ref) String() string {
	switch {
	case r.ManifestSHA256 != "":
		return "sha256:" + safe(r.ManifestSHA256)
	case r.Version != "":
		return safe(r.Name) + "@" + safe(r.Version)
	}
	return safe(r.Name)
}

// validate checks that r names one thing the registry can be asked for.
func (r Ref) validate() error {
	if r.ManifestSHA256 != "" {
		if r.Name != "" || r.Version != "" {
			return errors.New("a manifest digest names a version by itself: no name or version beside it")
		}
		if len(r.ManifestSHA256) != 64 || strings.Trim(r.ManifestSHA256, "0123456789abcdef") != "" {
			return errors.New("the manifest digest must be 64 lower-case hex digits")
		}
		return nil
	}
	switch {
	case r.Name == "":
		return errors.New("empty addon name")
	case len(r.Name) > maxNameLen:
		return fmt.Errorf("the addon name is longer than %d bytes", maxNameLen)
	case strings.ContainsAny(r.Name, "@/"):
		return errors.New("the addon name contains @ or /")
	}
	if err := safetext.Check(r.Name, 0); err != nil {
		return fmt.Errorf("the addon name: %w", err)
	}
	if r.Version != "" {
		if _, err := addon.ParseSemVer(r.Version); err != nil {
			return fmt.Errorf("the version: %w", err)
		}
	}
	return nil
}

// envelopePath is the path of the signed report r names.
func (r Ref) envelopePath() string {
	switch {
	case r.ManifestSHA256 != "":
		return "/v1/reports/sha256/" + r.ManifestSHA256 + "/report.dsse"
	case r.Version != "":
		return registry.AddonPath(r.Name) + "/versions/" + registry.PathSegment(r.Version) + "/report.dsse"
	}
	return registry.AddonPath(r.Name) + "/report.dsse"
}

// proofPath is the path of the inclusion proof of the report of
// name@version.
func proofPath(name, version string) string {
	return registry.AddonPath(name) + "/versions/" + registry.PathSegment(version) + "/proof"
}

// matches reports whether rep is a report about what r asked for.
func (r Ref) matches(rep *report.Report) error {
	switch {
	case r.ManifestSHA256 != "" && rep.ManifestSHA256 != r.ManifestSHA256:
		return fmt.Errorf("%w: asked for the manifest sha256:%s, got a report about sha256:%s", ErrMismatch, r.ManifestSHA256, safe(rep.ManifestSHA256))
	case r.Name != "" && rep.Addon.Name != r.Name:
		return fmt.Errorf("%w: asked for %s, got a report about %s", ErrMismatch, r, safe(rep.Addon.Name))
	case r.Version != "" && rep.Addon.Version != r.Version:
		return fmt.Errorf("%w: asked for %s, got a report about version %s", ErrMismatch, r, safe(rep.Addon.Version))
	}
	return nil
}
