package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// Manifest media types POST /v1/submissions takes. application/toml is the
// registered type of TOML; the JSON form is a registry-file entry.
const (
	MediaTOML = "application/toml"
	MediaJSON = "application/json"
)

type submissionCreated struct {
	Submission submissionJSON  `json:"submission"`
	Report     json.RawMessage `json:"report"`
}

// createSubmission audits a manifest and stores it with its report: 201 for
// a new submission, 200 when the bytes are those of the published version.
func (s *server) createSubmission(w http.ResponseWriter, r *http.Request) error {
	a, _ := ActorFrom(r.Context())
	if err := knownParams(r); err != nil {
		return err
	}
	var f workflow.Format
	switch mt, _ := mediaType(r); mt {
	case MediaTOML:
		f = workflow.FormatTOML
	case MediaJSON:
		f = workflow.FormatJSON
	default:
		return unsupportedMediaType(MediaTOML + " or " + MediaJSON)
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return malformedBody("the body is empty")
	}
	if !utf8.Valid(body) {
		return invalid(registry.FieldError{Message: "the manifest is not valid UTF-8"})
	}
	sub, rep, created, err := s.wf.Submit(r.Context(), a, body, f, nil)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", s.public+registry.SubmissionPath(sub.ID))
	}
	return writeJSON(w, r, status, submissionCreated{Submission: s.submission(sub), Report: rep.Bytes})
}

// listSubmissions serves the review queue; a submitter sees only its own.
func (s *server) listSubmissions(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r, "status", "verdict", "source", "addon", "cursor", "limit"); err != nil {
		return err
	}
	q := r.URL.Query()
	f := storage.SubmissionFilter{
		Status:  registry.SubmissionStatus(q.Get("status")),
		Verdict: registry.Verdict(q.Get("verdict")),
		Source:  registry.Source(q.Get("source")),
		Addon:   q.Get("addon"),
	}
	switch f.Status {
	case "", registry.StatusPending, registry.StatusApproved, registry.StatusRejected:
	default:
		return badRequest("status", "must be pending, approved or rejected")
	}
	if f.Verdict != "" && !f.Verdict.Valid() {
		return badRequest("verdict", "must be pass, review or fail")
	}
	if f.Source != "" && !f.Source.Valid() {
		return badRequest("source", "must be rest, github, mcp-registry or leanctx")
	}
	if f.Addon != "" {
		if err := validAddonName(f.Addon); err != nil {
			return badRequest("addon", "must be an addon name")
		}
	}
	if a, _ := ActorFrom(r.Context()); !a.Role.AtLeast(registry.RoleMaintainer) {
		f.SubmitterToken = a.TokenID
	}
	scope := listing.Scope(r, f.SubmitterToken)
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	subs, next, err := s.reader.Submissions(r.Context(), f, p)
	if err != nil {
		return listErr(err)
	}
	items := make([]submissionJSON, len(subs))
	for i, sub := range subs {
		items[i] = s.submission(sub)
	}
	return writeList(s, w, r, items, next, scope, "private, no-cache")
}

// visibleSubmission loads the submission of the {id} parameter if the
// caller may see it: maintainers see all, a submitter its own; others get
// the same 404 as for a submission that does not exist, so ids don't leak.
func (s *server) visibleSubmission(r *http.Request) (registry.Submission, error) {
	id := param(r, "id")
	if err := validID("id", id); err != nil {
		return registry.Submission{}, err
	}
	sub, err := s.reader.Submission(r.Context(), id)
	if err != nil {
		return registry.Submission{}, notFoundAs(err, "no such submission")
	}
	if a, _ := ActorFrom(r.Context()); !a.Role.AtLeast(registry.RoleMaintainer) && (a.TokenID == "" || sub.SubmitterToken != a.TokenID) {
		return registry.Submission{}, problem.NotFound("no such submission")
	}
	return sub, nil
}

type submissionDetail struct {
	Submission    submissionJSON     `json:"submission"`
	Findings      []findingJSON      `json:"findings"`
	WiringBase    *wiringBaseJSON    `json:"wiring_base"`
	WiringChanges []wiringChangeJSON `json:"wiring_changes"`
}

// getSubmission serves one submission with its findings and what it changes
// in the wiring against the latest published version (wiring_base null
// when there is none to compare with; wiring_changes null as well when a
// stored manifest no longer decodes and so cannot be compared).
func (s *server) getSubmission(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	sub, err := s.visibleSubmission(r)
	if err != nil {
		return err
	}
	fs, err := s.reader.Findings(r.Context(), sub.ID)
	if err != nil {
		return err
	}
	out := submissionDetail{Submission: s.submission(sub), Findings: make([]findingJSON, len(fs))}
	for i, f := range fs {
		out.Findings[i] = findingJSON{Level: f.Level.String(), Code: f.Code, Message: f.Message, Path: f.Path, Line: f.Line, Suppressed: f.Suppressed}
	}
	d, err := workflow.CompareWiring(r.Context(), s.reader, sub)
	switch {
	case errors.Is(err, registry.ErrInvalid):
	case err != nil:
		return err
	default:
		out.WiringChanges = wiringChanges(d.Changes)
		if d.Base != nil {
			out.WiringBase = &wiringBaseJSON{Version: d.Base.Version, WiringSHA256: d.Base.WiringSHA256}
		}
	}
	return writeJSON(w, r, http.StatusOK, out)
}

// submissionReport serves a submission's current report bytes.
func (s *server) submissionReport(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	sub, err := s.visibleSubmission(r)
	if err != nil {
		return err
	}
	rep, err := s.reader.Report(r.Context(), sub.ID)
	if err != nil {
		return err
	}
	serveReport(w, r, rep, "private, no-cache")
	return nil
}

// approvalRequest is the body of an approval. Override publishes a
// submission whose verdict is fail, and then Reason is required.
type approvalRequest struct {
	Reason   string `json:"reason"`
	Override bool   `json:"override"`
}

// rejectionRequest is the body of a rejection.
type rejectionRequest struct {
	Reason string `json:"reason"`
}

type submissionEnvelope struct {
	Submission submissionJSON `json:"submission"`
}

// decide approves or rejects a pending submission.
func (s *server) decide(approve bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := knownParams(r); err != nil {
			return err
		}
		id := param(r, "id")
		if err := validID("id", id); err != nil {
			return err
		}
		var req approvalRequest
		var err error
		if approve {
			err = s.decodeJSON(w, r, &req)
		} else {
			var rej rejectionRequest
			err = s.decodeJSON(w, r, &rej)
			req.Reason = rej.Reason
		}
		if err != nil {
			return err
		}
		if fe := freeText("reason", req.Reason, !approve || req.Override, workflow.MaxReasonBytes); fe != nil {
			return invalid(*fe)
		}
		a, _ := ActorFrom(r.Context())
		var sub registry.Submission
		switch {
		case approve && req.Override:
			sub, err = s.wf.ApproveOverride(r.Context(), a, id, req.Reason)
		case approve:
			sub, err = s.wf.Approve(r.Context(), a, id, req.Reason)
		default:
			sub, err = s.wf.Reject(r.Context(), a, id, req.Reason)
		}
		if err != nil {
			return notFoundAs(err, "no such submission")
		}
		return writeJSON(w, r, http.StatusOK, submissionEnvelope{Submission: s.submission(sub)})
	}
}
