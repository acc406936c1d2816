package registry

import "time"

// Session is a signed-in maintainer's browser session. Only the SHA-256 of
// the cookie's secret is kept. A session lasts until ExpiresAt, until its
// holder signs out, or until the token it was opened with is revoked.
type Session struct {
	Hash      []byte // sha256 of the cookie secret
	TokenID   string
	Name      string // the token's principal's name
	Principal string // the token's principal ID, filled when read
	Role      Role
	CreatedAt time.Time
	ExpiresAt time.Time
}
