// Package client lets an install client decide whether to install an addon
// from a registryd registry without trusting the registry's server, its
// database, a mirror or the network in between: only the registry's
// signing key, pinned by the caller.
//
// A Client fetches the signed report (a DSSE envelope) of an addon, of one
// version, or of the version whose manifest has a given SHA-256, and
// verifies it the way the Go command verifies modules against the checksum
// database:
//
//  1. the report is signed by a pinned key, and is about what was asked;
//  2. the log's checkpoint is signed by a pinned key, carries the expected
//     origin, and is no older than a maximum age (24 hours by default);
//  3. the report is included in the log: the leaf recomputed from the
//     report itself leads, through the inclusion proof, to the
//     checkpoint's root;
//  4. the log extends the last checkpoint this client saw, which it keeps
//     in a state directory (one file per origin, replaced atomically): a
//     smaller tree is a rollback, another root for the same size or a
//     consistency proof that fails is a fork.
//
// Only then does a Policy decide on the report: Open, BlockFail (the
// default), BlockRisky or VerifiedOnly. Every failure to verify is an error
// matching ErrUnverified, and the client fails closed: there is no option
// to skip a check.
//
// The formats (the leaf, the checkpoint, the envelope, the keys) are those
// of package transparency; proofs are checked with
// github.com/transparency-dev/merkle and notes opened with
// golang.org/x/mod/sumdb/note.
package client
