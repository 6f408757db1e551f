package mpirec

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// source is the recorder's C source.
//
//go:embed csrc/vefrec.c csrc/unsupported.h
var source embed.FS

// LibraryName is the file name of the built recorder.
const LibraryName = "libvefrec.so"

// BuildFlags are mpicc's flags for the recorder, before -o.
var BuildFlags = []string{"-O2", "-shared", "-fPIC"}

// sourceDigest is a digest of the C source: the cache directory's name,
// so a changed recorder is built anew.
func sourceDigest() (string, error) {
	h := sha256.New()
	for _, name := range []string{"csrc/vefrec.c", "csrc/unsupported.h"} {
		b, err := source.ReadFile(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// DefaultCacheDir is where Library keeps the recorder:
// $XDG_CACHE_HOME/opasim (or ~/.cache/opasim).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "opasim"), nil
}

// Library returns the path of the recorder built for this source under
// cacheDir (cacheDir/vefrec-<digest>/libvefrec.so), building it with mpicc
// first if it is not there, and saying so on log: the command it runs and
// where the library stays. Two builds at once do not clash: each builds
// in its own directory and renames into place.
func Library(ctx context.Context, cacheDir, mpicc string, log io.Writer) (string, error) {
	digest, err := sourceDigest()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cacheDir, "vefrec-"+digest)
	lib := filepath.Join(dir, LibraryName)
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("the recorder's cache: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("the recorder's cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := fs.WalkDir(source, "csrc", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := source.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, filepath.Base(path)), b, 0o644)
	}); err != nil {
		return "", err
	}
	args := append(append([]string{}, BuildFlags...), "-o", LibraryName, "vefrec.c")
	fmt.Fprintf(log, "building the MPI recorder (once; kept in %s): %s %s\n", dir, mpicc, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, mpicc, args...)
	cmd.Dir = tmp
	outb, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the recorder: %s %s in %s: %w\n%s", mpicc, strings.Join(args, " "), tmp, err, outb)
	}
	if err := os.Rename(filepath.Join(tmp, LibraryName), lib); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("the recorder's cache: %w", err)
	}
	return lib, nil
}

// WriteSource writes the recorder's C source files into dir, for a
// build by hand.
func WriteSource(dir string) error {
	for _, name := range []string{"csrc/vefrec.c", "csrc/unsupported.h"} {
		b, err := source.ReadFile(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
