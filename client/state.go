package client

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// maxStateFile bounds what is read back from a state file: a checkpoint
// note is a few hundred bytes.
const maxStateFile = 64 << 10

// stateDir keeps, for each log origin, the last checkpoint a client
// verified, as the signed note text the registry served. One file per
// origin, named after the SHA-256 of the origin so that no origin can name
// a path; its first line is the origin, for whoever reads it.
//
// Writes are atomic: the note goes to a temporary file in the same
// directory, which is synced, renamed over the old file, and the directory
// synced, so that a crash leaves the old checkpoint or the new one, never a
// mix. stateDir itself does not serialise its callers; Client holds a lock
// around each read-compare-write.
type stateDir struct {
	dir string
}

// path is the file that holds origin's checkpoint.
func (s stateDir) path(origin string) string {
	h := sha256.Sum256([]byte(origin))
	return filepath.Join(s.dir, "checkpoint-"+hex.EncodeToString(h[:]))
}

// load returns the note saved for origin, or an error matching
// fs.ErrNotExist when none was saved.
func (s stateDir) load(origin string) ([]byte, error) {
	f, err := os.Open(s.path(origin))
	if err != nil {
		return nil, fmt.Errorf("read the saved checkpoint: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the saved checkpoint %s: %w", f.Name(), err)
	}
	if len(b) > maxStateFile {
		return nil, fmt.Errorf("the saved checkpoint %s is larger than %d bytes", f.Name(), maxStateFile)
	}
	return b, nil
}

// save replaces origin's checkpoint with note, atomically and durably.
func (s stateDir) save(origin string, note []byte) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create the state directory: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".checkpoint-*")
	if err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(note); err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(origin)); err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	done = true
	return syncDir(s.dir)
}

// syncDir makes a rename in dir durable. Windows cannot sync a directory,
// and makes renames durable by itself.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync the state directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync the state directory: %w", err)
	}
	return nil
}
