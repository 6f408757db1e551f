package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// usageError marks bad input: exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func badInput(err error) error { return usageError{err} }

// signalled reports a run stopped by a signal after it wrote what it had:
// exit status 128 + the signal's number, as a shell reports a process the
// signal killed (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return fmt.Sprintf("stopped by %v", s.sig) }

// exitStatus is the process' exit status for the error a command returned.
func exitStatus(err error) int {
	var u usageError
	var s signalled
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	case errors.As(err, &s):
		return 128 + int(s.sig)
	}
	return 1
}

// stopSignals are the signals that stop a run cleanly: it writes what it
// measured so far, then exits 128 + the signal's number.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// onSignals returns a context cancelled by the first stop signal, and a
// function that stops listening and returns signalled{sig} if one came
// (nil otherwise). A second signal while stopping is handled the same.
func onSignals(parent context.Context) (context.Context, func() error) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	got := make(chan os.Signal, 1)
	go func() {
		select {
		case s := <-ch:
			got <- s
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() error {
		signal.Stop(ch)
		cancel()
		select {
		case s := <-got:
			return signalled{s.(syscall.Signal)}
		default:
			return nil
		}
	}
}

// checkOptional runs checkWritable on each of the flags given (pairs of
// flag and path) whose path is set.
func checkOptional(outs ...[2]string) error {
	for _, o := range outs {
		if o[1] != "" {
			if err := checkWritable(o[0], o[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkWritable makes sure a file can be written at path before a long run
// produces it: an existing path must be a regular file open for writing;
// otherwise its directory must take a new file. The flag names the option
// in the message.
func checkWritable(flag, path string) error {
	if path == "" {
		return badInput(fmt.Errorf("%s: empty path", flag))
	}
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return badInput(fmt.Errorf("%s %s: not a regular file", flag, path))
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return badInput(fmt.Errorf("%s: %w", flag, err))
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".opasim-check-*")
	if err != nil {
		return badInput(fmt.Errorf("%s %s: cannot create a file in %s: %w", flag, path, dir, unwrapPath(err)))
	}
	f.Close()
	return os.Remove(f.Name())
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place: a reader never sees half a file, and a failed write
// leaves what was there.
func writeFileAtomic(path string, data []byte) error { return renameio.WriteFile(path, data, 0o644) }
