package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// baseline is the commit HEAD is timed against, read from the checked-in
// baseline file, and the reason it is the baseline.
type baseline struct {
	Commit string // full hexadecimal object name
	Why    string // the text after "why:", joined into one line
}

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// parseBaseline reads a baseline file: lines starting with # are comments,
// the first other line is the commit's full 40-digit hash, and a line
// starting with "why:" (continued by the lines after it, up to the next
// blank line or comment) says why that commit is the baseline. Both are
// required: the baseline moves only with a reason.
func parseBaseline(r io.Reader) (baseline, error) {
	var b baseline
	var why []string
	inWhy := false
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			inWhy = false
			continue
		}
		switch {
		case b.Commit == "":
			if !commitRE.MatchString(text) {
				return baseline{}, fmt.Errorf("line %d: %q is not a full 40-digit lower-case commit hash", line, text)
			}
			b.Commit = text
		case strings.HasPrefix(text, "why:"):
			inWhy = true
			if w := strings.TrimSpace(strings.TrimPrefix(text, "why:")); w != "" {
				why = append(why, w)
			}
		case inWhy:
			why = append(why, text)
		default:
			return baseline{}, fmt.Errorf("line %d: %q: after the commit only a why: paragraph is allowed", line, text)
		}
	}
	if err := sc.Err(); err != nil {
		return baseline{}, err
	}
	if b.Commit == "" {
		return baseline{}, fmt.Errorf("no commit hash")
	}
	b.Why = strings.Join(why, " ")
	if b.Why == "" {
		return baseline{}, fmt.Errorf("no why: line saying why %s is the baseline", b.Commit[:12])
	}
	return b, nil
}

// readBaseline parses the baseline file at path.
func readBaseline(path string) (baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return baseline{}, err
	}
	defer f.Close()
	b, err := parseBaseline(f)
	if err != nil {
		return baseline{}, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
