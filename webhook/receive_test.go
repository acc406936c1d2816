package webhook

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/registryd/registryd/registry"
)

// TestReceiveOverHTTP sends real deliveries over a real listener to a
// handler built on Receive, the way the API server will use it.
func TestReceiveOverHTTP(t *testing.T) {
	secret := []byte("webhook-secret")
	budget := testBudget(t)
	var parsed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, err := Receive(r, [][]byte{[]byte("retired"), secret}, budget)
		switch {
		case errors.Is(err, ErrBusy):
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case errors.Is(err, registry.ErrUnauthenticated):
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
		case errors.Is(err, registry.ErrTooLarge):
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		case errors.Is(err, registry.ErrInvalid):
			http.Error(w, err.Error(), http.StatusBadRequest)
		case err != nil:
			http.Error(w, "internal", http.StatusInternalServerError)
		default:
			parsed.Add(1)
			w.Header().Set("X-Event", e.Name+"/"+e.Action+"/"+e.DeliveryID)
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)

	body, err := os.ReadFile(filepath.Join(fixturesDir(t), "pull_request.synchronize.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	form := formBody(body)
	tests := []struct {
		name       string
		body       []byte
		ct, event  string
		sig        string
		delivery   string
		wantStatus int
		wantEvent  string
	}{
		{"json", body, "application/json", "pull_request", SignatureValue(body, secret), "72d3162e-cc78-11e3-81ab-4c9367dc0958", 202, "pull_request/synchronize/72d3162e-cc78-11e3-81ab-4c9367dc0958"},
		{"form", form, "application/x-www-form-urlencoded", "pull_request", SignatureValue(form, secret), "d1", 202, "pull_request/synchronize/d1"},
		{"signed with the retired secret", body, "application/json", "pull_request", SignatureValue(body, []byte("retired")), "d2", 202, "pull_request/synchronize/d2"},
		{"form signed over the JSON, not the raw body", form, "application/x-www-form-urlencoded", "pull_request", SignatureValue(body, secret), "d3", 401, ""},
		{"unsigned", body, "application/json", "pull_request", "", "d4", 401, ""},
		{"wrong secret", body, "application/json", "pull_request", SignatureValue(body, []byte("guess")), "d5", 401, ""},
		{"signed garbage is refused after the signature", []byte("{"), "application/json", "pull_request", SignatureValue([]byte("{"), secret), "d6", 400, ""},
		{"no delivery id", body, "application/json", "pull_request", SignatureValue(body, secret), "", 400, ""},
		{"delivery id with newline", body, "application/json", "pull_request", SignatureValue(body, secret), "a\nb", 0, ""},
		{"unsigned garbage never parsed", []byte("{"), "text/plain", "", "sha256=00", "d7", 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", srv.URL, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", tt.ct)
			req.Header.Set(EventHeader, tt.event)
			if tt.sig != "" {
				req.Header.Set(SignatureHeader, tt.sig)
			}
			if tt.delivery != "" && !strings.Contains(tt.delivery, "\n") {
				req.Header.Set(DeliveryHeader, tt.delivery)
			}
			if strings.Contains(tt.delivery, "\n") {
				// net/http refuses to send such a header; check Receive directly.
				r := httptest.NewRequest("POST", "/", bytes.NewReader(tt.body))
				r.Header = req.Header.Clone()
				r.Header[DeliveryHeader] = []string{tt.delivery}
				if _, err := Receive(r, [][]byte{secret}, budget); !errors.Is(err, registry.ErrInvalid) {
					t.Errorf("Receive = %v, want ErrInvalid", err)
				}
				return
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Get("X-Event"); got != tt.wantEvent {
				t.Errorf("event %q, want %q", got, tt.wantEvent)
			}
		})
	}
	if n := parsed.Load(); n != 3 {
		t.Errorf("%d deliveries accepted, want 3", n)
	}
	t.Run("body over the limit", func(t *testing.T) {
		big := bytes.Repeat([]byte(" "), MaxBodyBytes+1)
		req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(EventHeader, "push")
		req.Header.Set(DeliveryHeader, "d9")
		req.Header.Set(SignatureHeader, SignatureValue(big, secret))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d, want 413", resp.StatusCode)
		}
	})
}
