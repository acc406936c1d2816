package corpus

import (
	"errors"
	"fmt"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

// Outcome is the audit of one record, as `registryd audit --format json`
// would produce it for the record's manifest.
type Outcome struct {
	// Manifest is the TOML the record became; nil when Err is ErrNoWiring.
	Manifest []byte
	// Report is the canonical report; nil when the manifest was refused.
	Report []byte
	// Refusal is the decoder's refusal of Manifest, or nil. It is always a
	// *registry.ValidationError.
	Refusal *registry.ValidationError
	// Err is any other failure: ErrNoWiring, or an error that is a defect
	// (a decoder error that is not a ValidationError, a report that cannot
	// be built, a panic).
	Err error
}

// AuditRecord renders r as a manifest, decodes it strictly, audits it and
// builds its report with the community tier. A panic anywhere in the
// pipeline is recovered into Err, so one bad record cannot hide the rest.
func AuditRecord(r Record) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out.Report = nil
			out.Err = fmt.Errorf("panic: %v", p)
		}
	}()
	m, err := r.Manifest()
	if err != nil {
		return Outcome{Err: err}
	}
	out.Manifest = m
	parsed, err := addon.ParseTOML(m)
	if err != nil {
		var ve *registry.ValidationError
		if errors.As(err, &ve) {
			out.Refusal = ve
		} else {
			out.Err = fmt.Errorf("decoder returned %T, not a *registry.ValidationError: %w", err, err)
		}
		return out
	}
	_, out.Report, out.Err = report.Build(report.Input{
		Manifest: m,
		Parsed:   parsed,
		Result:   assess.Audit(parsed),
		Tier:     registry.TierCommunity,
	})
	return out
}
