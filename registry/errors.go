package registry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors shared by every layer. Wrap them with context
// (`fmt.Errorf("load addon %q: %w", name, ErrNotFound)`) and test with
// errors.Is; the HTTP layer maps each to one status code.
var (
	// ErrNotFound: the thing asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the request contradicts the current state (a published
	// version with other bytes, a decision already taken).
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the input is malformed; usually carried by a
	// *ValidationError that names the fields.
	ErrInvalid = errors.New("invalid input")
	// ErrTooLarge: the input is over a size bound.
	ErrTooLarge = errors.New("too large")
	// ErrUnauthenticated: no valid credentials were presented.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden: the caller is known but lacks the role.
	ErrForbidden = errors.New("forbidden")
	// ErrOwnSubmission: four eyes; a maintainer may not approve a
	// submission their own principal submitted. It matches ErrForbidden.
	ErrOwnSubmission = fmt.Errorf("%w: a maintainer cannot approve their own submission", ErrForbidden)
)

// FieldError is one refused field of an input. Path is the dotted field path
// (`mcp.args[2]`); Line is the 1-based line in the source document, or 0
// when the decoder does not know it. Message is safe to print: it never
// echoes a value or key that could attack a terminal or a page.
type FieldError struct {
	Path    string
	Line    int
	Message string
}

// String renders e as `path (line N): message`.
func (e FieldError) String() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
	} else {
		b.WriteString("(document)")
	}
	if e.Line > 0 {
		b.WriteString(" (line ")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// ValidationError is an input refused for one or more field errors. It
// matches ErrInvalid under errors.Is, and ErrTooLarge as well when TooLarge is
// set (the input as a whole was over its size bound).
type ValidationError struct {
	Fields   []FieldError
	TooLarge bool
}

// Error joins the field errors, one per line.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.String()
	}
	if len(parts) == 0 {
		return "invalid input"
	}
	return strings.Join(parts, "\n")
}

// Is makes a *ValidationError match ErrInvalid (and ErrTooLarge when set).
func (e *ValidationError) Is(target error) bool {
	return target == ErrInvalid || (e.TooLarge && target == ErrTooLarge)
}

// maxBlockedListed bounds the findings a BlockedError's message names.
const maxBlockedListed = 10

// BlockedError refuses to publish a submission whose verdict is fail.
// Findings are its blocking findings that no suppression covers, in report
// order. A maintainer may publish it anyway only by approving it with an
// override and a reason, which the audit log keeps. It matches ErrConflict
// under errors.Is.
type BlockedError struct {
	Findings []StoredFinding
}

// Error names the blocking findings by code and path.
func (e *BlockedError) Error() string {
	var b strings.Builder
	b.WriteString("the verdict is fail, which blocks publication")
	for i, f := range e.Findings {
		if i == maxBlockedListed {
			b.WriteString(", and " + strconv.Itoa(len(e.Findings)-i) + " more")
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(f.Code)
		b.WriteString(" at ")
		if f.Path == "" {
			b.WriteString("(manifest)")
		} else {
			b.WriteString(f.Path)
		}
	}
	b.WriteString("; approve it with an override and a reason to publish it anyway")
	return b.String()
}

// Is makes a *BlockedError match ErrConflict.
func (e *BlockedError) Is(target error) bool { return target == ErrConflict }
