package assess

import (
	"bytes"
	"testing"
)

// secretNameByContains is secretName as a search for each word in turn:
// what secretName must answer, read more slowly.
func secretNameByContains(name string) bool {
	var buf [64]byte
	n := normalName(name, &buf)
	switch string(n) {
	case "authorization", "proxy_authorization", "cookie", "key", "sig", "signature", "auth", "pwd", "pass", "code":
		return true
	}
	for _, w := range []string{"token", "secret", "password", "passwd", "api_key", "apikey", "access_key",
		"private_key", "credential", "session", "bearer"} {
		if bytes.Contains(n, []byte(w)) {
			return true
		}
	}
	return bytes.HasSuffix(n, []byte("_key")) || bytes.HasPrefix(n, []byte("key_"))
}

func FuzzSecretName(f *testing.F) {
	for _, s := range []string{"GITHUB_TOKEN", "X-Api-Key", "db.password", "SESSION", "my_private_key", "key_id",
		"Authorization", "PATH", "t", "", "APIKEY", "credentials_file", "aws_access_key_id", "BEARER"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := secretName(name), secretNameByContains(name); got != want {
			t.Fatalf("secretName(%q) = %v, want %v", name, got, want)
		}
	})
}
