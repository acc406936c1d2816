package api

import (
	"net/http"
	"strconv"

	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/transparency"
)

// manifestCache lets shared caches keep a published manifest but makes them
// revalidate it: a published version's bytes never change, but the version
// may be removed.
const manifestCache = "public, no-cache"

// publishedManifest serves the manifest of a published addon@version
// exactly as it was submitted, with the media type it was submitted as and
// its sha256 as the strong ETag, so that a client can check that the bytes
// it installs are the ones the report is about.
func (s *server) publishedManifest(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	name, err := addonName(r)
	if err != nil {
		return err
	}
	version := param(r, "version")
	if err := validVersion(version); err != nil {
		return err
	}
	const missing = "no such published addon or version"
	v, err := s.reader.Version(r.Context(), name, version)
	if err != nil {
		return notFoundAs(err, missing)
	}
	// Version finds the same version under other build metadata; the
	// report's path names one version exactly, and so does this one.
	if v.Version != version {
		return notFoundAs(registry.ErrNotFound, missing)
	}
	sub, err := s.reader.Submission(r.Context(), v.SubmissionID)
	if err != nil {
		return err
	}
	etag := `"` + sub.ManifestSHA256 + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", manifestCache)
	if listing.ETagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", manifestMediaType(sub.Format))
	h.Set("Content-Length", strconv.Itoa(len(sub.Manifest)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(sub.Manifest)
	}
	return nil
}

// manifestMediaType is the media type a manifest of format was submitted
// as: the types POST /v1/submissions takes.
func manifestMediaType(format string) string {
	if format == "json" {
		return MediaJSON
	}
	return MediaTOML
}

// manifestDigest reads and checks the {sha256} parameter: the digest of a
// manifest, 64 lowercase hex digits.
func manifestDigest(r *http.Request) (string, error) {
	sum := param(r, "sha256")
	if len(sum) != 64 {
		return "", badRequest("sha256", "must be 64 lowercase hexadecimal digits")
	}
	for i := 0; i < len(sum); i++ {
		if c := sum[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", badRequest("sha256", "must be 64 lowercase hexadecimal digits")
		}
	}
	return sum, nil
}

// versionByManifest resolves the {sha256} parameter to the published
// version whose manifest has that digest: 400 for a malformed digest, 404
// when no published version has it.
func (s *server) versionByManifest(r *http.Request) (registry.Version, error) {
	if err := knownParams(r); err != nil {
		return registry.Version{}, err
	}
	sum, err := manifestDigest(r)
	if err != nil {
		return registry.Version{}, err
	}
	v, err := s.reader.VersionByManifest(r.Context(), sum)
	if err != nil {
		return v, notFoundAs(err, "no published version has a manifest with this sha256")
	}
	return v, nil
}

// reportByManifest serves the report of the published version whose
// manifest has the digest in the path: the same bytes and ETag as that
// version's report, so that a client holding a manifest file can look its
// report up without trusting a name.
func (s *server) reportByManifest(w http.ResponseWriter, r *http.Request) error {
	v, err := s.versionByManifest(r)
	if err != nil {
		return err
	}
	rep, err := s.reader.PublishedReport(r.Context(), v.Addon, v.Version)
	if err != nil {
		return notFoundAs(err, "no published version has a manifest with this sha256")
	}
	serveReport(w, r, rep, publicReportCache)
	return nil
}

// envelopeByManifest serves the DSSE envelope of the report that
// reportByManifest serves: the version's own envelope, bytes and ETag.
func (s *server) envelopeByManifest(w http.ResponseWriter, r *http.Request) error {
	v, err := s.versionByManifest(r)
	if err != nil {
		return err
	}
	env, err := s.reader.PublishedEnvelope(r.Context(), v.Addon, v.Version)
	if err != nil {
		return notFoundAs(err, "no published version has a manifest with this sha256, or its report is not signed yet")
	}
	serveBytes(w, r, env.Bytes, `"sha256-`+env.SHA256+`"`, transparency.EnvelopeMediaType, publicReportCache)
	return nil
}

// proofByManifest serves the inclusion proof of the report that
// reportByManifest serves: the version's own proof, kept in memory as the
// proofs by name are.
func (s *server) proofByManifest(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	sum, err := manifestDigest(r)
	if err != nil {
		return err
	}
	k := proofKey{manifest: sum}
	if p, ok := s.proofs.Get(k); ok {
		p.serve(w, r)
		return nil
	}
	// Which version has the digest may change with any addon's versions;
	// the proof, with the log.
	st := s.changes.WithLog(s.changes.All())
	v, err := s.reader.VersionByManifest(r.Context(), sum)
	if err != nil {
		return notFoundAs(err, "no published version has a manifest with this sha256")
	}
	p, err := s.reader.InclusionProof(r.Context(), v.Addon, v.Version)
	if err != nil {
		return notFoundAs(err, "no published version has a manifest with this sha256, or its report is not in the log yet")
	}
	rp := renderProof(p)
	s.proofs.Put(k, rp, st)
	rp.serve(w, r)
	return nil
}
