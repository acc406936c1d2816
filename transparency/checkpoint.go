package transparency

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"

	"github.com/registryd/registryd/safetext"
)

// CheckpointMediaType is the Content-Type of a served checkpoint.
const CheckpointMediaType = "text/plain; charset=utf-8"

// timestampPrefix starts the checkpoint's one extension line.
const timestampPrefix = "Timestamp: "

// MaxOrigin bounds a checkpoint's origin line, in bytes.
const MaxOrigin = 256

// ErrCheckpoint is wrapped by every error of ParseCheckpoint and
// OpenCheckpoint.
var ErrCheckpoint = errors.New("invalid checkpoint")

// Checkpoint is the state of the log at one moment: a C2SP checkpoint
// (origin, tree size, root hash) and the time it was signed.
type Checkpoint struct {
	log.Checkpoint
	// Timestamp is when the checkpoint was signed, in Unix seconds.
	Timestamp int64
}

// Time returns Timestamp as a time.Time.
func (c Checkpoint) Time() time.Time { return time.Unix(c.Timestamp, 0) }

// Marshal returns the checkpoint body, the text of the signed note:
//
//	ORIGIN
//	SIZE
//	BASE64 ROOT HASH
//	Timestamp: UNIX SECONDS
func (c Checkpoint) Marshal() []byte {
	b := c.Checkpoint.Marshal()
	b = append(b, timestampPrefix...)
	b = strconv.AppendInt(b, c.Timestamp, 10)
	return append(b, '\n')
}

// ParseCheckpoint parses a checkpoint body (the text of the note, without
// its signatures). It accepts exactly what Marshal writes for a valid
// checkpoint: an origin of at most MaxOrigin bytes that may be shown
// (package safetext), a decimal
// size, a 32-byte root hash in standard base64, and one extension line
// "Timestamp: " followed by non-negative decimal Unix seconds. The error
// wraps ErrCheckpoint and never quotes the input.
func ParseCheckpoint(body []byte) (Checkpoint, error) {
	var c Checkpoint
	rest, err := c.Checkpoint.Unmarshal(body)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: %v", ErrCheckpoint, scrub(err))
	}
	if err := checkOrigin(c.Origin); err != nil {
		return Checkpoint{}, err
	}
	if len(c.Hash) != 32 {
		return Checkpoint{}, fmt.Errorf("%w: root hash is %d bytes, want 32", ErrCheckpoint, len(c.Hash))
	}
	line, ok := bytes.CutPrefix(rest, []byte(timestampPrefix))
	if !ok || len(line) == 0 || bytes.IndexByte(line, '\n') != len(line)-1 {
		return Checkpoint{}, fmt.Errorf("%w: want one extension line, Timestamp", ErrCheckpoint)
	}
	c.Timestamp, err = strconv.ParseInt(string(line[:len(line)-1]), 10, 64)
	if err != nil || c.Timestamp < 0 {
		return Checkpoint{}, fmt.Errorf("%w: Timestamp is not non-negative decimal Unix seconds", ErrCheckpoint)
	}
	if !bytes.Equal(c.Marshal(), body) {
		// A size with leading zeros or a sign, a non-canonical base64
		// or timestamp, or more lines after the timestamp.
		return Checkpoint{}, fmt.Errorf("%w: not in canonical form", ErrCheckpoint)
	}
	return c, nil
}

// scrub turns a parse error of the library into one that cannot quote
// the input (strconv errors do).
func scrub(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": strconv."); i >= 0 {
		return s[:i]
	}
	if i := strings.Index(s, ": illegal base64"); i >= 0 {
		return s[:i]
	}
	return s
}

func checkOrigin(origin string) error {
	switch {
	case len(origin) > MaxOrigin:
		return fmt.Errorf("%w: origin longer than %d bytes", ErrCheckpoint, MaxOrigin)
	}
	if err := safetext.Check(origin, 0); err != nil {
		return fmt.Errorf("%w: origin %v", ErrCheckpoint, err)
	}
	return nil
}

// SignCheckpoint returns the checkpoint as a signed note, signed by every
// signer in order (during a key rotation, the active key first and then the
// retired ones). It refuses a checkpoint that ParseCheckpoint would refuse.
func SignCheckpoint(c Checkpoint, signers ...note.Signer) ([]byte, error) {
	body := c.Marshal()
	if _, err := ParseCheckpoint(body); err != nil {
		return nil, err
	}
	if len(signers) == 0 {
		return nil, fmt.Errorf("sign checkpoint: no signer")
	}
	b, err := note.Sign(&note.Note{Text: string(body)}, signers...)
	if err != nil {
		return nil, fmt.Errorf("sign checkpoint: %w", err)
	}
	return b, nil
}

// OpenCheckpoint verifies a signed checkpoint note and parses its body. At
// least one signature must be by one of keys, every signature by one of keys
// must verify (signatures by other keys are ignored, as a witness's would
// be), and the origin must equal origin. It returns the checkpoint and the
// IDs of the keys whose signatures verified, in the note's order. The error
// wraps ErrCheckpoint and never quotes the input.
func OpenCheckpoint(signed []byte, origin string, keys ...VerifierKey) (Checkpoint, []string, error) {
	if len(keys) == 0 {
		return Checkpoint{}, nil, fmt.Errorf("%w: no key to verify it with", ErrCheckpoint)
	}
	vs := make([]note.Verifier, 0, len(keys))
	ids := map[string]string{}
	for _, k := range keys {
		id := fmt.Sprintf("%s+%08x", k.Name(), k.KeyHash())
		if _, dup := ids[id]; !dup {
			ids[id] = k.ID
			vs = append(vs, k.Verifier)
		}
	}
	n, err := note.Open(signed, note.VerifierList(vs...))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		switch {
		case errors.As(err, &unverified):
			return Checkpoint{}, nil, fmt.Errorf("%w: not signed by a known key", ErrCheckpoint)
		case errors.As(err, &invalid):
			return Checkpoint{}, nil, fmt.Errorf("%w: a signature by a known key does not verify", ErrCheckpoint)
		default:
			return Checkpoint{}, nil, fmt.Errorf("%w: not a signed note", ErrCheckpoint)
		}
	}
	if !canonicalSignatures(n) {
		return Checkpoint{}, nil, fmt.Errorf("%w: a signature is not in canonical base64", ErrCheckpoint)
	}
	c, err := ParseCheckpoint([]byte(n.Text))
	if err != nil {
		return Checkpoint{}, nil, err
	}
	if c.Origin != origin {
		return Checkpoint{}, nil, fmt.Errorf("%w: origin is not the expected one", ErrCheckpoint)
	}
	signedBy := make([]string, 0, len(n.Sigs))
	for _, s := range n.Sigs {
		signedBy = append(signedBy, ids[fmt.Sprintf("%s+%08x", s.Name, s.Hash)])
	}
	return c, signedBy, nil
}

// canonicalSignatures reports whether every signature line of n is written
// in canonical base64. The note package decodes leniently: a final
// character whose unused bits are not zero gives the same signature bytes,
// so one signed checkpoint could be written in more than one way, and two
// parties comparing checkpoints byte for byte would disagree.
func canonicalSignatures(n *note.Note) bool {
	for _, sigs := range [][]note.Signature{n.Sigs, n.UnverifiedSigs} {
		for _, s := range sigs {
			if _, err := base64.StdEncoding.Strict().DecodeString(s.Base64); err != nil {
				return false
			}
		}
	}
	return true
}
