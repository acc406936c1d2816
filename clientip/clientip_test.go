package clientip

import (
	"crypto/tls"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustResolver(t testing.TB, trusted, header string) *Resolver {
	t.Helper()
	p, err := ParsePrefixes(trusted)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(p, header)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolve(t *testing.T) {
	const proxies = "10.0.0.0/8, 192.168.1.7, fd00::/8"
	tests := []struct {
		name    string
		trusted string
		header  string
		remote  string
		headers map[string][]string
		tls     bool
		want    string // Addr
		proxied bool
		secure  bool
	}{
		{name: "no proxy trusted: headers ignored", header: XForwardedFor, remote: "203.0.113.9:4000",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "X-Forwarded-Proto": {"https"}}, want: "203.0.113.9"},
		{name: "untrusted peer: headers ignored", trusted: proxies, header: XForwardedFor, remote: "203.0.113.9:4000",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "X-Forwarded-Proto": {"https"}}, want: "203.0.113.9"},
		{name: "trusted peer: its forwarded client", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, want: "198.51.100.1", proxied: true},
		{name: "right-most untrusted: a client's own XFF is skipped", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"1.2.3.4, 198.51.100.1"}}, want: "198.51.100.1", proxied: true},
		{name: "chain of trusted proxies", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"1.2.3.4, 198.51.100.1, 192.168.1.7", "10.9.9.9"}}, want: "198.51.100.1", proxied: true},
		{name: "every address trusted: the peer", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"10.2.2.2"}}, want: "10.1.2.3"},
		{name: "no header from a trusted peer: the peer", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000", want: "10.1.2.3"},
		{name: "garbage where the proxy's entry should be: the peer", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"1.2.3.4, not-an-ip"}}, want: "10.1.2.3"},
		{name: "Forwarded is not read when X-Forwarded-For is the header", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"Forwarded": {"for=1.2.3.4"}, "X-Forwarded-For": {"198.51.100.1"}}, want: "198.51.100.1", proxied: true},
		{name: "X-Forwarded-For is not read when Forwarded is the header", trusted: proxies, header: Forwarded, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"1.2.3.4"}, "Forwarded": {"for=198.51.100.1;proto=https"}}, want: "198.51.100.1", proxied: true, secure: true},
		{name: "Forwarded with IPv6 and port", trusted: proxies, header: Forwarded, remote: "[fd00::1]:4000",
			headers: map[string][]string{"Forwarded": {`for=1.2.3.4, for="[2001:db8::17]:4711";proto=http`}}, want: "2001:db8::17", proxied: true},
		{name: "IPv4-mapped peer is trusted as IPv4", trusted: proxies, header: XForwardedFor, remote: "[::ffff:10.1.2.3]:4000",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, want: "198.51.100.1", proxied: true},
		{name: "X-Forwarded-Proto from a trusted peer", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "X-Forwarded-Proto": {"HTTPS"}}, want: "198.51.100.1", proxied: true, secure: true},
		{name: "X-Forwarded-Proto http", trusted: proxies, header: XForwardedFor, remote: "10.1.2.3:4000",
			headers: map[string][]string{"X-Forwarded-Proto": {"http"}}, want: "10.1.2.3"},
		{name: "TLS to registryd itself", header: XForwardedFor, remote: "203.0.113.9:4000", tls: true, want: "203.0.113.9", secure: true},
		{name: "peer without a port", header: XForwardedFor, remote: "203.0.113.9", want: "203.0.113.9"},
		{name: "peer that is not an IP", trusted: proxies, header: XForwardedFor, remote: "pipe",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, want: "invalid IP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustResolver(t, tt.trusted, tt.header)
			req := &http.Request{RemoteAddr: tt.remote, Header: http.Header(tt.headers)}
			if req.Header == nil {
				req.Header = http.Header{}
			}
			if tt.tls {
				req.TLS = &tls.ConnectionState{}
			}
			got := r.Resolve(req)
			if got.Addr.String() != tt.want || got.Proxied != tt.proxied || got.Secure != tt.secure {
				t.Errorf("Resolve = {%s proxied=%v secure=%v}, want {%s proxied=%v secure=%v}",
					got.Addr, got.Proxied, got.Secure, tt.want, tt.proxied, tt.secure)
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "", want: nil},
		{in: "  ", want: nil},
		{in: "10.0.0.0/8", want: []string{"10.0.0.0/8"}},
		{in: "10.1.2.3/8, 192.168.1.7 ,fd00::/8,::1", want: []string{"10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "::1/128"}},
		{in: "::ffff:10.0.0.1", want: []string{"10.0.0.1/32"}},
		{in: "10.0.0.0/8,", wantErr: "item 2 of the list is empty"},
		{in: "10.0.0.0/33", wantErr: "item 1 is not a CIDR range"},
		{in: "proxy.internal", wantErr: "item 1 is not an IP address"},
		{in: "fe80::1%eth0", wantErr: "item 1 is not an IP address"},
		{in: "10.0.0.0/8 192.168.0.0/16", wantErr: "item 1 is not a CIDR range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePrefixes(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePrefixes(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gotS []string
			for _, p := range got {
				gotS = append(gotS, p.String())
			}
			if diff := cmp.Diff(tt.want, gotS); diff != "" {
				t.Errorf("ParsePrefixes(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestNewRefusesOtherHeaders(t *testing.T) {
	for _, h := range []string{"", "X-Real-IP", "True-Client-IP"} {
		if _, err := New(nil, h); err == nil {
			t.Errorf("New(nil, %q) accepted a header that is not a forwarding chain", h)
		}
	}
	if _, err := New(nil, "x-forwarded-for"); err != nil {
		t.Errorf("New(nil, x-forwarded-for): %v; header names are case-insensitive", err)
	}
}

// FuzzResolve: whatever the headers say, a peer outside the trusted ranges
// is its own client, and a resolved address is always a valid IP.
func FuzzResolve(f *testing.F) {
	f.Add(false, "198.51.100.1", "for=1.2.3.4;proto=https", "https", "10.1.2.3:1")
	f.Add(true, "1.2.3.4, 10.0.0.1", `for="[2001:db8::1]:80"`, "http,https", "[fd00::2]:9")
	f.Add(false, "", "", "", "203.0.113.9:80")
	f.Add(true, ",,,", "for=;;;,=", "\x00", "10.0.0.1:1")
	resolvers := map[bool]*Resolver{
		false: mustResolver(f, "10.0.0.0/8, fd00::/8", XForwardedFor),
		true:  mustResolver(f, "10.0.0.0/8, fd00::/8", Forwarded),
	}
	f.Fuzz(func(t *testing.T, forwarded bool, xff, fwd, proto, remote string) {
		r := resolvers[forwarded]
		req := &http.Request{RemoteAddr: remote, Header: http.Header{
			"X-Forwarded-For": {xff}, "Forwarded": {fwd}, "X-Forwarded-Proto": {proto},
		}}
		c := r.Resolve(req)
		peer, ok := peerAddr(remote)
		if ok && !r.trusts(peer) && (c.Addr != peer || c.Proxied || c.Secure) {
			t.Fatalf("untrusted peer %s resolved to %+v", remote, c)
		}
		if c.Proxied && !c.Addr.IsValid() {
			t.Fatalf("proxied client without a valid address: %+v", c)
		}
	})
}

func TestContext(t *testing.T) {
	c := Client{Addr: netip.MustParseAddr("198.51.100.1"), Secure: true}
	got, ok := FromContext(WithClient(t.Context(), c))
	if !ok || got != c {
		t.Errorf("FromContext = %+v, %v; want %+v", got, ok, c)
	}
	if _, ok := FromContext(t.Context()); ok {
		t.Error("FromContext of a bare context reports a client")
	}
}
