package client

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestStateDir(t *testing.T) {
	s := stateDir{filepath.Join(t.TempDir(), "nested", "state")}
	if _, err := s.load("a.example"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("load before any save = %v, want fs.ErrNotExist", err)
	}
	origins := []string{"a.example", "../../etc/passwd", "", "b.example/log"}
	for i, o := range origins {
		if err := s.save(o, []byte{byte('0' + i)}); err != nil {
			t.Fatalf("save(%q): %v", o, err)
		}
	}
	if err := s.save("a.example", []byte("second")); err != nil {
		t.Fatal(err)
	}
	for i, o := range origins {
		want := string(rune('0' + i))
		if i == 0 {
			want = "second"
		}
		got, err := s.load(o)
		if err != nil || string(got) != want {
			t.Errorf("load(%q) = %q, %v; want %q", o, got, err, want)
		}
	}
	// One file per origin, all inside the directory, no temporary file left.
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(origins) {
		t.Errorf("state directory holds %d files, want %d", len(entries), len(origins))
	}
	for _, e := range entries {
		if filepath.Dir(s.path("../../etc/passwd")) != s.dir || len(e.Name()) != len("checkpoint-")+64 {
			t.Errorf("unexpected file %q", e.Name())
		}
	}
	if err := os.WriteFile(s.path("big"), make([]byte, maxStateFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.load("big"); err == nil {
		t.Errorf("load of an oversized file succeeded")
	}
}

// TestStateDirUnwritable: a state directory that cannot be written is an
// error, and the old checkpoint stays.
func TestStateDirUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes through permissions; a file in the way of the
		// directory stops everyone.
		dir := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(dir, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := (stateDir{dir}).save("a", []byte("x")); err == nil {
			t.Errorf("save under a regular file succeeded")
		}
		return
	}
	dir := t.TempDir()
	s := stateDir{dir}
	if err := s.save("a", []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if err := s.save("a", []byte("new")); err == nil {
		t.Errorf("save into a read-only directory succeeded")
	}
	if got, _ := s.load("a"); string(got) != "old" {
		t.Errorf("after a failed save: %q, want old", got)
	}
}
