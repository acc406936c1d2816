package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
)

// FuzzSubmit posts arbitrary bodies under arbitrary content types to POST
// /v1/submissions and to an approve endpoint: every answer must be a
// documented status with a body that matches the OpenAPI document, never a
// 5xx, and a problem must never carry a control or invisible character.
func FuzzSubmit(f *testing.F) {
	e := newEnv(f, fixture.SQLite)
	c, err := loadContract()
	if err != nil {
		f.Fatal(err)
	}
	pending := submissionID(f, e.submit(f, e.submitter, manifest("seed", "1.0.0"), http.StatusCreated))
	seeds := []struct {
		ctype string
		body  string
	}{
		{"application/toml", manifest("weather", "1.0.0")},
		{"application/toml", npxManifest("weather", "2.0.0")},
		{"application/toml", "[addon\nname="},
		{"application/toml", "[addon]\nname = \"a\xff\"\n"},
		{"application/toml", manifest("x", "1.0.0", `comand = "x"`)},
		{"application/json", `{"name":"x","version":"1.0.0"}`},
		{"application/json", `{"addon": `},
		{"application/json", `{"reason":"ok"}`},
		{"application/json", `{"reason":"\u202e"} {}`},
		{"text/plain", "x"},
		{"application/toml; charset=latin1", "x"},
		{"", ""},
	}
	for _, s := range seeds {
		f.Add(s.ctype, []byte(s.body), false)
		f.Add(s.ctype, []byte(s.body), true)
	}
	plain := &http.Client{}
	f.Fuzz(func(t *testing.T, ctype string, body []byte, decide bool) {
		path := "/v1/submissions"
		token := e.submitter
		if decide {
			path = "/v1/submissions/" + pending + "/reject"
			token = e.maintainer
		}
		r, err := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+token)
		if ctype != "" && validHeaderValue(ctype) {
			r.Header.Set("Content-Type", ctype)
		}
		res, err := plain.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode >= 500 {
			t.Fatalf("status %d for %q %q\n%s", res.StatusCode, ctype, body, got)
		}
		if err := c.check(r, res.StatusCode, res.Header, got); err != nil {
			t.Fatalf("OpenAPI contract: %v", err)
		}
		if res.StatusCode >= 400 {
			var p api.Problem
			if err := json.Unmarshal(got, &p); err != nil {
				t.Fatalf("problem: %v\n%s", err, got)
			}
			texts := []string{p.Detail}
			for _, fe := range p.Errors {
				texts = append(texts, fe.Path, fe.Message)
			}
			for _, s := range texts {
				for _, ch := range s {
					if ch != utf8.RuneError && !unicode.IsPrint(ch) && ch != ' ' {
						t.Fatalf("problem text %q carries %U", s, ch)
					}
				}
			}
		}
	})
}

// validHeaderValue reports whether net/http will send v as a header value.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
