package report

import (
	"strconv"

	"github.com/registryd/registryd/internal/canonjson"
)

// The report's canonical form is written directly rather than by
// encoding/json followed by jcs.Transform, which parses what encoding/json
// wrote and writes it a second time. A Report holds only strings, integers,
// booleans, nulls, arrays and objects with fixed ASCII member names, so
// RFC 8785 reduces to three things here:
//
//   - members in the order of their names' UTF-16 code units, which for
//     ASCII names is byte order: the append functions below write each
//     object's members in that order, by hand;
//   - strings per RFC 8785 §3.2.2.2 (see canonjson.AppendString);
//   - integers as ECMAScript writes numbers, which for an integer of
//     magnitude at most 2^53 is its plain decimal form. A larger one would be
//     rounded to a double first; appendCanonical refuses it and Encode falls
//     back to the general path, so the bytes are the same either way.
//
// The general path (encodeGeneral) stays as the reference: tests check that
// both give the same bytes and that jcs.Transform leaves them unchanged.

// maxExactInt is the largest magnitude up to which every integer is exactly
// representable as an IEEE 754 double, and so printed by JCS as written.
const maxExactInt = 1 << 53

// appendCanonical appends the canonical JSON of r, as Encode defines it (nil
// lists written as []), to dst. It reports false, with dst in an unspecified
// state, when r holds an integer beyond ±2^53, which JCS would rewrite.
func appendCanonical(dst []byte, r *Report) ([]byte, bool) {
	if !exactInt(r.Counts.Info) || !exactInt(r.Counts.Warn) || !exactInt(r.Counts.Danger) || !exactInt(r.Counts.Suppressed) {
		return dst, false
	}
	for i := range r.Findings {
		if !exactInt(r.Findings[i].Line) {
			return dst, false
		}
	}

	dst = append(dst, `{"addon":{"name":`...)
	dst = canonjson.AppendString(dst, r.Addon.Name)
	dst = append(dst, `,"version":`...)
	dst = canonjson.AppendString(dst, r.Addon.Version)
	dst = append(dst, `},"capabilities":`...)
	if c := r.Capabilities; c == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"env":`...)
		dst = appendStrings(dst, c.Env)
		dst = append(dst, `,"exec":`...)
		dst = canonjson.AppendString(dst, string(c.Exec))
		dst = append(dst, `,"exec_allow":`...)
		dst = appendStrings(dst, c.ExecAllow)
		dst = append(dst, `,"filesystem":`...)
		dst = canonjson.AppendString(dst, string(c.Filesystem))
		dst = append(dst, `,"network":`...)
		dst = canonjson.AppendString(dst, string(c.Network))
		dst = append(dst, '}')
	}
	dst = append(dst, `,"counts":{"danger":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Danger), 10)
	dst = append(dst, `,"info":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Info), 10)
	dst = append(dst, `,"suppressed":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Suppressed), 10)
	dst = append(dst, `,"warn":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Warn), 10)
	dst = append(dst, `},"findings":[`...)
	for i := range r.Findings {
		f := &r.Findings[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"blocking":`...)
		dst = strconv.AppendBool(dst, f.Blocking)
		dst = append(dst, `,"code":`...)
		dst = canonjson.AppendString(dst, f.Code)
		dst = append(dst, `,"level":`...)
		dst = canonjson.AppendString(dst, f.Level.String())
		dst = append(dst, `,"line":`...)
		dst = strconv.AppendInt(dst, int64(f.Line), 10)
		dst = append(dst, `,"message":`...)
		dst = canonjson.AppendString(dst, f.Message)
		dst = append(dst, `,"path":`...)
		dst = canonjson.AppendString(dst, f.Path)
		if f.Suppressed != nil {
			dst = append(dst, `,"suppressed":{"reason":`...)
			dst = canonjson.AppendString(dst, string(f.Suppressed.Reason))
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"inferred":{"exec":`...)
	dst = strconv.AppendBool(dst, r.Inferred.Exec)
	dst = append(dst, `,"network":`...)
	dst = strconv.AppendBool(dst, r.Inferred.Network)
	dst = append(dst, `},"manifest_sha256":`...)
	dst = canonjson.AppendString(dst, r.ManifestSHA256)
	dst = append(dst, `,"removed":`...)
	dst = strconv.AppendBool(dst, r.Removed)
	dst = append(dst, `,"risk":`...)
	dst = canonjson.AppendString(dst, r.Risk.String())
	dst = append(dst, `,"ruleset":`...)
	dst = canonjson.AppendString(dst, r.Ruleset)
	dst = append(dst, `,"schema":`...)
	dst = canonjson.AppendString(dst, r.Schema)
	dst = append(dst, `,"tier":`...)
	dst = canonjson.AppendString(dst, string(r.Tier))
	dst = append(dst, `,"transport":`...)
	dst = canonjson.AppendString(dst, r.Transport)
	dst = append(dst, `,"verdict":`...)
	dst = canonjson.AppendString(dst, string(r.Verdict))
	dst = append(dst, `,"wiring_sha256":`...)
	dst = canonjson.AppendString(dst, r.WiringSHA256)
	dst = append(dst, '}')
	return dst, true
}

func exactInt(n int) bool { return n >= -maxExactInt && n <= maxExactInt }

// appendStrings appends a JSON array of strings; nil is written as [].
func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = canonjson.AppendString(dst, s)
	}
	return append(dst, ']')
}
