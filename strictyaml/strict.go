package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"

	"gopkg.in/yaml.v3"
)

// MaxFileBytes caps what Load and ReadChecked read from one file: far above
// any real config, small enough that a wrong path (a device, a huge data
// file) is refused at once.
const MaxFileBytes = 1 << 20

// Load decodes the YAML file path over the struct v points to (keys the
// file does not name keep their value), as Decode does. A file that is not
// a regular file, or is larger than MaxFileBytes, is refused.
func Load(path string, v any) error {
	if path == "" {
		return errors.New("empty path")
	}
	f, err := OpenRegular(path, MaxFileBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(LimitReader(f, MaxFileBytes))
	if err != nil {
		return err
	}
	if err := Decode(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Decode decodes YAML into the struct v points to (keys it does not name
// keep their value). What the struct cannot hold is refused before
// anything is decoded, as KeyProblems naming each key path as written, its
// line and what is wrong: unknown keys (with the closest allowed key),
// values of the wrong type, repeated keys, nesting deeper than 64 levels.
// A second YAML document is an error too.
func Decode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil
	} else if err != nil {
		return tabProblem(data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document")
	}
	if err := checkDocument(&doc, reflect.TypeOf(v).Elem()); err != nil {
		return err
	}
	// The check found nothing; the strict decode is a second guard.
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// ReadChecked reads the YAML file path (a regular file of at most
// MaxFileBytes) and checks its keys and value types against type t, each
// problem named by its key path and line, for a caller that decodes the
// data itself. Errors begin with the path.
func ReadChecked(path string, t reflect.Type) ([]byte, error) {
	f, err := OpenRegular(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(LimitReader(f, MaxFileBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkKeys(data, t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// checkKeys checks the first YAML document of data against type t: its
// keys and value types, each problem naming the key path and line (the
// decoders' own messages name Go types). A document that does not parse
// is left to the decoder.
func checkKeys(data []byte, t reflect.Type) error {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil
	}
	return checkDocument(&doc, t)
}

// OpenRegular opens path for reading if it is a regular file of at most
// limit bytes.
func OpenRegular(path string, limit int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > limit {
		f.Close()
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d", path, st.Size(), limit)
	}
	return f, nil
}

// LimitReader reads at most limit bytes, then fails: a file that grows
// while it is read is not read without bound.
func LimitReader(r io.Reader, limit int64) io.Reader {
	return &capped{r: io.LimitReader(r, limit+1), left: limit + 1, limit: limit}
}

type capped struct {
	r           io.Reader
	left, limit int64
}

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left <= 0 {
		return n, fmt.Errorf("more than %d bytes", c.limit)
	}
	return n, err
}
