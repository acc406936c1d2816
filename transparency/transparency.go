// Package transparency holds the formats that let an install client verify
// a registryd report without trusting the server, its database or the
// network between them: the leaf the server appends to its transparency log
// for every rendered report, the signed checkpoint of that log, the DSSE
// envelope around a report, and the keys that sign both.
//
// The log is an RFC 6962 Merkle tree (github.com/transparency-dev/merkle);
// checkpoints are C2SP checkpoints (github.com/transparency-dev/formats/log)
// signed as notes (golang.org/x/mod/sumdb/note), as the Go checksum database
// does; envelopes are DSSE (github.com/secure-systems-lab/go-securesystemslib/dsse)
// with Ed25519 signatures. This package only composes those libraries: it
// implements no cryptography and no proof of its own.
//
// The package is pure: no I/O, no clock, no randomness of its own (key
// generation takes the caller's reader). Every function is safe for
// concurrent use; a *Signer may be shared.
package transparency
