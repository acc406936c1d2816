package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
)

// Decode parses report bytes written by Build. It refuses unknown fields,
// trailing data, a schema other than Schema or SchemaV1 (whose reports have
// no wiring_sha256, read as ""), and values outside the wire
// vocabulary (an unknown tier, verdict, level or suppression reason), with a
// *registry.ValidationError naming the field. Decode does not require the
// bytes to be canonical, so a reader can accept a report that was
// re-serialized on the way.
func Decode(b []byte) (*Report, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, invalid("(document)", "not a report: "+jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalid("(document)", "trailing data after the report")
	}
	var fields []registry.FieldError
	add := func(path, msg string) { fields = append(fields, registry.FieldError{Path: path, Message: msg}) }
	switch r.Schema {
	case Schema:
		if len(r.WiringSHA256) != 64 || !isLowerHex(r.WiringSHA256) {
			add("wiring_sha256", "must be 64 lower-case hex digits")
		}
	case SchemaV1:
		if r.WiringSHA256 != "" {
			add("wiring_sha256", "is not a field of "+SchemaV1)
		}
	default:
		add("schema", "must be "+Schema)
	}
	if r.Ruleset == "" {
		add("ruleset", "must not be empty")
	}
	if len(r.ManifestSHA256) != 64 || !isLowerHex(r.ManifestSHA256) {
		add("manifest_sha256", "must be 64 lower-case hex digits")
	}
	if !r.Tier.Valid() {
		add("tier", `must be "community" or "verified"`)
	}
	if !r.Verdict.Valid() {
		add("verdict", `must be "pass", "review" or "fail"`)
	}
	if r.Findings == nil {
		add("findings", "must be a list")
	}
	for i, f := range r.Findings {
		if f.Level == registry.LevelNone {
			add(fmt.Sprintf("findings[%d].level", i), `must be "info", "warn" or "danger"`)
		}
		if f.Code == "" {
			add(fmt.Sprintf("findings[%d].code", i), "must not be empty")
		}
		if f.Line < 0 {
			add(fmt.Sprintf("findings[%d].line", i), "must not be negative")
		}
		if f.Suppressed != nil && !f.Suppressed.Reason.Valid() {
			add(fmt.Sprintf("findings[%d].suppressed.reason", i), "unknown suppression reason")
		}
	}
	if c := r.Capabilities; c != nil {
		if c.Network != addon.NetworkNone && c.Network != addon.NetworkFull {
			add("capabilities.network", `must be "none" or "full"`)
		}
		if c.Filesystem != addon.FilesystemReadOnly && c.Filesystem != addon.FilesystemReadWrite {
			add("capabilities.filesystem", `must be "read_only" or "read_write"`)
		}
		if c.Exec != addon.ExecNone && c.Exec != addon.ExecFull && c.Exec != addon.ExecAllow {
			add("capabilities.exec", `must be "none", "full" or "allow"`)
		}
	}
	if len(fields) > 0 {
		return nil, &registry.ValidationError{Fields: fields}
	}
	return &r, nil
}

func invalid(path, msg string) error {
	return &registry.ValidationError{Fields: []registry.FieldError{{Path: path, Message: msg}}}
}

// jsonProblem describes a decoding error without echoing input: the
// encoding/json messages for unknown fields and type errors quote the
// document, so only their kind and position are kept.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("malformed JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if isSafeFieldPath(typ.Field) {
			return fmt.Sprintf("field %s has the wrong type", typ.Field)
		}
		return "a field has the wrong type"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	default:
		return "malformed or unknown field"
	}
}

func isSafeFieldPath(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
