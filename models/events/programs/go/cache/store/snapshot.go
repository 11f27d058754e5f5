package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// RestoreError says which shard could not be restored from which snapshot; it wraps the cause.
type RestoreError struct {
	Shard int
	Path  string
	Err   error
}

func (e *RestoreError) Error() string {
	return fmt.Sprintf("restore shard %d from %s: %v", e.Shard, e.Path, e.Err)
}

func (e *RestoreError) Unwrap() error { return e.Err }

// must is the loader's shortcut for errors it cannot handle where they happen.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

func readManifest(dir string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		panic(fmt.Errorf("read manifest: %w", err))
	}
	return b
}

// Restore loads a shard's entries from its snapshot directory; failures panic with a *RestoreError.
func (s *Shard) Restore(dir string) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok {
				must(&RestoreError{Shard: s.ID, Path: dir, Err: err})
			}
			panic(r)
		}
	}()
	manifest := readManifest(dir)
	s.entries[string(manifest)] = &Entry{Key: string(manifest)}
}
