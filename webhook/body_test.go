package webhook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/registryd/registryd/registry"
)

// testBudget is a budget of the smallest size a server may configure.
func testBudget(t testing.TB) *BodyBudget {
	t.Helper()
	b, err := NewBodyBudget(MinBodyBudget)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pattern is n bytes that differ from chunk to chunk, so that a body put
// together in the wrong order shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// untouchable is a body that fails the test if anything reads it.
type untouchable struct{ t *testing.T }

func (u untouchable) Read([]byte) (int, error) {
	u.t.Errorf("the body was read")
	return 0, io.EOF
}

// wantNothingHeld fails unless b holds no body in flight.
func wantNothingHeld(t *testing.T, b *BodyBudget) {
	t.Helper()
	if inFlight, _ := b.Held(); inFlight != 0 {
		t.Errorf("%d bytes still held in flight, want 0", inFlight)
	}
}

func TestBodyBudgetRead(t *testing.T) {
	budget := testBudget(t)
	secret := []byte("s")
	for _, size := range []int{0, 1, 1000, chunkBytes - 1, chunkBytes, chunkBytes + 1, 3*chunkBytes + 17, SmallBodyBytes, MaxBodyBytes} {
		want := pattern(size)
		readers := []struct {
			name     string
			r        func() io.Reader
			declared int64
		}{
			{"declared", func() io.Reader { return bytes.NewReader(want) }, int64(size)},
			{"chunked", func() io.Reader { return bytes.NewReader(want) }, -1},
			{"data with EOF", func() io.Reader { return iotest.DataErrReader(bytes.NewReader(want)) }, -1},
		}
		if size <= 3*chunkBytes+17 {
			readers = append(readers, struct {
				name     string
				r        func() io.Reader
				declared int64
			}{"one byte at a time", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(want)) }, int64(size)})
		}
		for _, rd := range readers {
			t.Run(fmt.Sprintf("%d/%s", size, rd.name), func(t *testing.T) {
				body, err := budget.Read(rd.r(), rd.declared)
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if body.Len() != size || !bytes.Equal(body.Bytes(), want) {
					t.Fatalf("read %d bytes, want the %d bytes sent", body.Len(), size)
				}
				if err := body.Verify(SignatureValue(want, secret), [][]byte{secret}); err != nil {
					t.Errorf("Verify over the buffers: %v", err)
				}
				if err := body.Verify(SignatureValue(append(want, ' '), secret), [][]byte{secret}); !errors.Is(err, ErrSignatureMismatch) {
					t.Errorf("Verify of other bytes = %v, want ErrSignatureMismatch", err)
				}
				if inFlight, _ := budget.Held(); inFlight != int64(len(body.chunks))*chunkBytes || inFlight < int64(size) {
					t.Errorf("held %d bytes for a %d-byte body", inFlight, size)
				}
				body.Release()
				body.Release()
				wantNothingHeld(t, budget)
			})
		}
	}
}

func TestBodyBudgetReadRefusals(t *testing.T) {
	budget := testBudget(t)
	timeout := &os.PathError{Op: "read", Path: "conn", Err: os.ErrDeadlineExceeded}
	tests := []struct {
		name     string
		r        io.Reader
		declared int64
		want     error
		wantPath string
	}{
		{"declared over the limit", nil, MaxBodyBytes + 1, ErrBodyTooLarge, ""},
		{"chunked one byte over the limit", bytes.NewReader(make([]byte, MaxBodyBytes+1)), -1, ErrBodyTooLarge, ""},
		{"chunked far over the limit", io.LimitReader(zeros{}, 3*MaxBodyBytes), -1, ErrBodyTooLarge, ""},
		{"a tighter http.MaxBytesReader", http.MaxBytesReader(nil, io.NopCloser(bytes.NewReader(make([]byte, 100))), 10), -1, ErrBodyTooLarge, ""},
		{"read deadline", iotest.ErrReader(timeout), 100, ErrBodyTimeout, ""},
		{"read deadline after some bytes", io.MultiReader(strings.NewReader("{"), iotest.ErrReader(timeout)), -1, ErrBodyTimeout, ""},
		{"cut short", io.MultiReader(strings.NewReader("{"), iotest.ErrReader(io.ErrUnexpectedEOF)), 100, registry.ErrInvalid, "body"},
		{"malformed chunks", iotest.ErrReader(errors.New("invalid byte in chunk length")), -1, registry.ErrInvalid, "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r
			if r == nil {
				r = untouchable{t}
			}
			body, err := budget.Read(r, tt.declared)
			if !errors.Is(err, tt.want) || body != nil {
				t.Fatalf("Read = %v, %v; want nil, %v", body, err, tt.want)
			}
			if tt.wantPath != "" {
				var ve *registry.ValidationError
				if !errors.As(err, &ve) || ve.Fields[0].Path != tt.wantPath {
					t.Errorf("error %v does not name field %q", err, tt.wantPath)
				}
			}
			if errors.Is(err, ErrBodyTimeout) && !errors.Is(err, registry.ErrInvalid) {
				t.Errorf("ErrBodyTimeout must still be a client error (ErrInvalid)")
			}
			wantNothingHeld(t, budget)
		})
	}
}

// zeros is an endless body.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestBodyBudgetBound fills a small budget: a declared body it cannot hold
// is refused before a byte is read, a chunked one as soon as it outgrows
// it, and the reserve stays for small declared bodies.
func TestBodyBudgetBound(t *testing.T) {
	const limit, reserve = 40 * chunkBytes, 8 * chunkBytes
	b := newBodyBudget(limit, reserve, time.Hour)

	big, err := b.Read(bytes.NewReader(pattern(30*chunkBytes-1)), -1)
	if err != nil {
		t.Fatalf("a 30-chunk body in a 40-chunk budget: %v", err)
	}
	if _, err := b.Read(untouchable{t}, SmallBodyBytes+1); !errors.Is(err, ErrBusy) {
		t.Errorf("declared large body beyond the budget less its reserve = %v, want ErrBusy", err)
	}
	if _, err := b.Read(bytes.NewReader(pattern(2*chunkBytes+1)), -1); !errors.Is(err, ErrBusy) {
		t.Errorf("chunked body beyond the budget less its reserve = %v, want ErrBusy", err)
	}
	if inFlight, _ := b.Held(); inFlight != 30*chunkBytes {
		t.Errorf("held %d after the refusals, want the first body's %d", inFlight, 30*chunkBytes)
	}
	two, err := b.Read(bytes.NewReader(pattern(2*chunkBytes-1)), -1)
	if err != nil {
		t.Fatalf("a chunked body that fits beside the reserve: %v", err)
	}
	var small []*Body
	for i := range 8 {
		s, err := b.Read(bytes.NewReader(pattern(1000)), 1000)
		if err != nil {
			t.Fatalf("small declared body %d, using the reserve: %v", i+1, err)
		}
		small = append(small, s)
	}
	if _, err := b.Read(untouchable{t}, 1000); !errors.Is(err, ErrBusy) {
		t.Errorf("small declared body with the whole budget held = %v, want ErrBusy", err)
	}
	if inFlight, spare := b.Held(); inFlight != limit || spare != 0 {
		t.Errorf("held %d in flight and %d spare, want %d and 0", inFlight, spare, limit)
	}
	for _, bd := range append(small, big, two) {
		bd.Release()
	}
	if inFlight, spare := b.Held(); inFlight != 0 || spare != limit {
		t.Errorf("after release: %d in flight and %d spare, want 0 and %d", inFlight, spare, limit)
	}
	// Spare buffers are reused, not added to.
	again, err := b.Read(bytes.NewReader(pattern(6*chunkBytes)), -1)
	if err != nil {
		t.Fatal(err)
	}
	if inFlight, spare := b.Held(); inFlight+spare != limit {
		t.Errorf("%d in flight and %d spare, want them to add up to the %d made so far", inFlight, spare, limit)
	}
	again.Release()
}

// TestBodyBudgetConcurrent reads bodies of every size from many goroutines
// at once: what is in flight and spare never exceeds the limit, every body
// comes back intact or refused with ErrBusy, and nothing is held after.
func TestBodyBudgetConcurrent(t *testing.T) {
	const limit = 16 * chunkBytes
	b := newBodyBudget(limit, 4*chunkBytes, time.Hour)
	var wg sync.WaitGroup
	for g := range 8 {
		rng := rand.New(rand.NewPCG(uint64(g), 1))
		wg.Go(func() {
			for range 50 {
				size := rng.IntN(6 * chunkBytes)
				want := pattern(size)
				declared := int64(-1)
				if rng.IntN(2) == 0 {
					declared = int64(size)
				}
				body, err := b.Read(iotest.HalfReader(bytes.NewReader(want)), declared)
				if errors.Is(err, ErrBusy) {
					continue
				}
				if err != nil {
					t.Errorf("Read: %v", err)
					return
				}
				if inFlight, spare := b.Held(); inFlight+spare > limit {
					t.Errorf("%d in flight and %d spare, over the limit of %d", inFlight, spare, limit)
				}
				if !bytes.Equal(body.Bytes(), want) {
					t.Errorf("body of %d bytes came back altered", size)
				}
				body.Release()
			}
		})
	}
	wg.Wait()
	wantNothingHeld(t, b)
}

// TestBodyBudgetTrims: once nothing is in flight a trim is scheduled, and
// it lets the spare buffers go; while a body is in flight it keeps them.
func TestBodyBudgetTrims(t *testing.T) {
	b := newBodyBudget(MinBodyBudget, SmallBodyReserve, time.Hour)
	first, err := b.Read(bytes.NewReader(pattern(2*chunkBytes)), -1)
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Read(bytes.NewReader(pattern(chunkBytes)), chunkBytes)
	if err != nil {
		t.Fatal(err)
	}
	kept := int64(len(first.chunks)) * chunkBytes
	first.Release()
	if b.trim != nil {
		t.Errorf("a trim was scheduled while a body is in flight")
	}
	b.trimSpare() // a timer of an earlier quiet moment firing now
	if _, spare := b.Held(); spare != kept {
		t.Errorf("%d spare bytes kept while a body is in flight, want %d", spare, kept)
	}
	second.Release()
	if b.trim == nil {
		t.Fatalf("no trim scheduled once nothing is in flight")
	}
	b.trim.Stop()
	b.trimSpare()
	if inFlight, spare := b.Held(); inFlight != 0 || spare != 0 {
		t.Errorf("after the trim: %d in flight and %d spare, want nothing", inFlight, spare)
	}
}

func TestNewBodyBudget(t *testing.T) {
	if _, err := NewBodyBudget(MinBodyBudget - 1); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("NewBodyBudget(MinBodyBudget-1) = %v, want ErrInvalid", err)
	}
	b := testBudget(t)
	if b.limit-b.reserve < MaxBodyBytes {
		t.Errorf("the smallest budget leaves %d bytes for large bodies, under MaxBodyBytes", b.limit-b.reserve)
	}
	if DefaultBodyBudget < MinBodyBudget {
		t.Errorf("DefaultBodyBudget is under MinBodyBudget")
	}
}

// TestReceiveRefusesBeforeReading: a request that cannot be a delivery, or
// that the budget cannot hold, is refused without a byte of its body read.
func TestReceiveRefusesBeforeReading(t *testing.T) {
	secret := []byte("s3cret")
	good := SignatureValue([]byte("{}"), secret)
	full := testBudget(t)
	held, err := full.Read(io.LimitReader(zeros{}, MaxBodyBytes), MaxBodyBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	tests := []struct {
		name    string
		header  map[string]string
		length  int64
		secrets [][]byte
		budget  *BodyBudget
		want    error
	}{
		{"no signature", map[string]string{SignatureHeader: ""}, 2, nil, nil, ErrSignatureMissing},
		{"sha1 signature", map[string]string{SignatureHeader: "sha1=" + strings.Repeat("0", 40)}, 2, nil, nil, ErrSignatureMalformed},
		{"63 hex digits", map[string]string{SignatureHeader: good[:len(good)-1]}, 2, nil, nil, ErrSignatureMalformed},
		{"65 hex digits", map[string]string{SignatureHeader: good + "0"}, 2, nil, nil, ErrSignatureMalformed},
		{"not hex", map[string]string{SignatureHeader: "sha256=" + strings.Repeat("g", 64)}, 2, nil, nil, ErrSignatureMalformed},
		{"upper-case prefix", map[string]string{SignatureHeader: "SHA256=" + good[7:]}, 2, nil, nil, ErrSignatureMalformed},
		{"no event", map[string]string{EventHeader: ""}, 2, nil, nil, registry.ErrInvalid},
		{"bad event", map[string]string{EventHeader: "Push!"}, 2, nil, nil, registry.ErrInvalid},
		{"no delivery id", map[string]string{DeliveryHeader: ""}, 2, nil, nil, registry.ErrInvalid},
		{"bad delivery id", map[string]string{DeliveryHeader: "a b"}, 2, nil, nil, registry.ErrInvalid},
		{"declared over the limit", nil, MaxBodyBytes + 1, nil, nil, ErrBodyTooLarge},
		{"declared beyond the budget", nil, MaxBodyBytes, nil, full, ErrBusy},
		{"no secret configured", nil, 2, [][]byte{{}}, nil, ErrNoSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", untouchable{t})
			r.ContentLength = tt.length
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(SignatureHeader, good)
			r.Header.Set(EventHeader, "push")
			r.Header.Set(DeliveryHeader, "72d3162e-cc78-11e3-81ab-4c9367dc0958")
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			secrets, budget := tt.secrets, tt.budget
			if secrets == nil {
				secrets = [][]byte{secret}
			}
			if budget == nil {
				budget = testBudget(t)
			}
			if _, err := Receive(r, secrets, budget); !errors.Is(err, tt.want) {
				t.Errorf("Receive = %v, want %v", err, tt.want)
			}
			if tt.want != ErrBusy && tt.want != ErrNoSecret {
				if err := CheckHeaders(r.Header, r.ContentLength); !errors.Is(err, tt.want) {
					t.Errorf("CheckHeaders = %v, want %v", err, tt.want)
				}
			}
		})
	}
	t.Run("fields named", func(t *testing.T) {
		err := CheckHeaders(http.Header{SignatureHeader: {good}}, -1)
		var ve *registry.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields) != 2 || ve.Fields[0].Path != DeliveryHeader || ve.Fields[1].Path != EventHeader {
			t.Fatalf("CheckHeaders without event and delivery = %v, want both named", err)
		}
		for _, f := range ve.Fields {
			if f.Message != "missing" {
				t.Errorf("%s: message %q, want missing", f.Path, f.Message)
			}
		}
	})
}
