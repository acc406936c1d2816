// Package clientip finds who a request comes from when registryd runs
// behind reverse proxies: the client's address (for rate limits and logs)
// and whether it reached the first proxy over HTTPS (for Secure cookies).
//
// Forwarding headers are believed only from a trusted proxy: a peer whose
// address is in one of the configured ranges. Anyone else can write any
// header, so for them the peer address is the client, and the connection
// itself says whether it is secure. From a trusted peer, the client is the
// right-most address of the forwarding header that is not itself a trusted
// proxy: every trusted proxy appends the address it received the request
// from, so the addresses to the right of that one were written by proxies
// we trust, and everything to its left by someone we do not.
//
// Exactly one header carries the chain, the one the proxies append to
// (X-Forwarded-For, or Forwarded from RFC 7239): a proxy passes the other
// through untouched, so believing it too would let a client choose its own
// address.
package clientip

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/realclientip/realclientip-go"
)

// The forwarding headers a Resolver can read the chain from.
const (
	XForwardedFor = "X-Forwarded-For"
	Forwarded     = "Forwarded"
)

// Client is who a request comes from.
type Client struct {
	// Addr is the client's address: the peer's, or the one a trusted proxy
	// forwarded. It is the zero Addr when the peer address is not an IP
	// (a test's fake connection).
	Addr netip.Addr
	// Secure reports that the client's connection was HTTPS: to registryd
	// itself, or to the first proxy as a trusted proxy says.
	Secure bool
	// Proxied reports that Addr came from a trusted proxy's header.
	Proxied bool
}

// Resolver resolves the Client of a request. The zero Resolver trusts no
// proxy. It is safe for concurrent use.
type Resolver struct {
	trusted  []netip.Prefix
	header   string
	strategy realclientip.Strategy
}

// New returns a Resolver that believes header (XForwardedFor or Forwarded)
// from peers in trusted. With no trusted ranges it never reads a
// forwarding header.
func New(trusted []netip.Prefix, header string) (*Resolver, error) {
	header = http.CanonicalHeaderKey(header)
	if header != XForwardedFor && header != Forwarded {
		return nil, fmt.Errorf("the forwarding header must be %s or %s", XForwardedFor, Forwarded)
	}
	r := &Resolver{trusted: trusted, header: header}
	if len(trusted) == 0 {
		return r, nil
	}
	nets := make([]net.IPNet, len(trusted))
	for i, p := range trusted {
		p = p.Masked()
		nets[i] = net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
	}
	s, err := realclientip.NewRightmostTrustedRangeStrategy(header, nets)
	if err != nil {
		return nil, err
	}
	r.strategy = s
	return r, nil
}

// Resolve returns the Client of req.
func (r *Resolver) Resolve(req *http.Request) Client {
	c := Client{Secure: req.TLS != nil}
	peer, ok := peerAddr(req.RemoteAddr)
	if !ok {
		return c
	}
	c.Addr = peer
	if r == nil || r.strategy == nil || !r.trusts(peer) {
		return c
	}
	if s := r.strategy.ClientIP(req.Header, req.RemoteAddr); s != "" {
		if a, err := netip.ParseAddr(s); err == nil {
			c.Addr, c.Proxied = a.Unmap(), true
		}
	}
	if !c.Secure {
		c.Secure = r.forwardedProto(req.Header) == "https"
	}
	return c
}

func (r *Resolver) trusts(a netip.Addr) bool {
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedProto returns the scheme the first proxy received the request
// with, lower-cased, or "". With X-Forwarded-For that is X-Forwarded-Proto
// (its first value, the edge proxy's); with Forwarded, the proto parameter
// of the first element that has one.
func (r *Resolver) forwardedProto(h http.Header) string {
	if r.header == XForwardedFor {
		v, _, _ := strings.Cut(h.Get("X-Forwarded-Proto"), ",")
		return strings.ToLower(strings.TrimSpace(v))
	}
	for _, line := range h.Values(Forwarded) {
		for elem := range strings.SplitSeq(line, ",") {
			for pair := range strings.SplitSeq(elem, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(k, "proto") {
					return strings.ToLower(strings.Trim(v, `"`))
				}
			}
		}
	}
	return ""
}

// peerAddr parses a connection's remote address (host:port).
func peerAddr(remote string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap(), true
	}
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// ParsePrefixes parses a comma-separated list of CIDR ranges
// (10.0.0.0/8, fd00::/8); a bare address stands for itself alone (/32 or
// /128). Blanks around items are ignored; an empty list is no range.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("item %d of the list is empty", i+1)
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("item %d is not a CIDR range such as 10.0.0.0/8", i+1)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("item %d is not an IP address or a CIDR range such as 10.0.0.0/8", i+1)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

type ctxKey struct{}

// WithClient returns a copy of ctx carrying c.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// FromContext returns the Client WithClient stored in ctx.
func FromContext(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(ctxKey{}).(Client)
	return c, ok
}
