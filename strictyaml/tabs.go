package strictyaml

import (
	"bytes"
	"fmt"
	"strings"
)

// tabProblem explains a YAML syntax error caused by a tab in a line's
// indentation, which yaml.v3 reports without a line when it is on the
// first and otherwise often at the line of the mapping above it. When err
// is such an error and a line is indented with a tab, it names the first
// such line; otherwise it returns err.
func tabProblem(data []byte, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "tab character") && !strings.Contains(msg, "cannot start any token") {
		return err
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return fmt.Errorf("line %d: a tab in the indentation: YAML indents with spaces only", i+1)
		}
	}
	return err
}
