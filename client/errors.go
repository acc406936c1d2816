package client

import "errors"

// ErrUnverified is matched (errors.Is) by every error of Client.Verify that
// means the client could not verify what the registry answered: the client
// fails closed, and a caller must not install. Each such error also matches
// one of the more precise errors below.
var ErrUnverified = errors.New("could not verify")

// The reasons a report could not be verified. Each matches ErrUnverified.
var (
	// ErrSignature: the report's envelope or the log's checkpoint carries no
	// valid signature by a pinned key (a bad signature, another key, or a
	// malformed envelope or note).
	ErrSignature = unverified("no valid signature by a pinned key")
	// ErrNotIncluded: the report is not proved to be in the log (the proof
	// does not lead to the checkpoint's root, or is for another report).
	ErrNotIncluded = unverified("the report is not proved to be in the log")
	// ErrInconsistent: the log does not extend the one this client saw
	// before: a smaller tree (a rollback), the same size with another root,
	// or a consistency proof that fails (a fork).
	ErrInconsistent = unverified("the log is not consistent with the one this client saw")
	// ErrStale: the checkpoint is older than the client's maximum age.
	ErrStale = unverified("the log's checkpoint is too old")
	// ErrMismatch: the registry answered about something else than what
	// was asked (another addon, version or manifest), or in a form the
	// client does not read.
	ErrMismatch = unverified("the registry's answer does not match the request")
	// ErrUnreachable: the registry could not be reached, or answered with
	// an unexpected HTTP status.
	ErrUnreachable = unverified("the registry could not be reached")
	// ErrState: the client's own record of the log could not be read or
	// written.
	ErrState = unverified("the client's record of the log is unusable")
)

// ErrNotPublished is returned when the registry says it has no published
// report for what was asked (HTTP 404). It is not a failure to verify, and
// does not match ErrUnverified: the registry's answer is unsigned, so a
// caller must treat it as "do not install" under every policy that demands
// a report, which is every policy but Open.
var ErrNotPublished = errors.New("not published in the registry")

// reason is one of the errors above that matches ErrUnverified.
type reason struct{ msg string }

func unverified(msg string) error { return &reason{msg} }

func (r *reason) Error() string { return r.msg }

func (r *reason) Is(target error) bool { return target == ErrUnverified }
