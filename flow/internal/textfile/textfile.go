// Package textfile reads the flow engine's line-oriented input files
// (graph files, job streams): whitespace-separated fields, '#' starting a
// comment, blank lines skipped, lines of bounded length.
package textfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Fields calls fn with the number (from 1) and the fields of every line of
// r that has any, comments removed, and stops at fn's first error. A line
// longer than maxLine bytes is an error naming name, the line and the
// limit.
func Fields(r io.Reader, name string, maxLine int, fn func(line int, f []string) error) error {
	return FieldsUntil(r, name, maxLine, nil, fn)
}

// ErrStopped is what FieldsUntil returns when its stop said to stop.
var ErrStopped = errors.New("stopped")

// stopEvery is how many lines FieldsUntil reads between two questions to
// stop.
const stopEvery = 1 << 12

// FieldsUntil is Fields that asks stop (nil: never) every few thousand
// lines, blank ones included, and returns ErrStopped once it says to.
func FieldsUntil(r io.Reader, name string, maxLine int, stop func() bool, fn func(line int, f []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), maxLine)
	line := 0
	for sc.Scan() {
		line++
		if stop != nil && line%stopEvery == 0 && stop() {
			return ErrStopped
		}
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		if f := strings.Fields(text); len(f) > 0 {
			if err := fn(line, f); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w (lines are limited to %d bytes)", name, line+1, err, maxLine)
	}
	return nil
}
