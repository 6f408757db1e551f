package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/fabric"
)

// maxFileBytes caps what the run layer reads from one input file (a config
// or a DTable table): far above any real one, small enough that a wrong
// path (a device, a huge data file) is refused at once.
const maxFileBytes = 1 << 20

// LoadConfig decodes the YAML file path over cfg (keys it does not name
// keep their value). Unknown keys and a second YAML document are errors, as
// are a file that is not a regular file or is larger than 1 MiB.
func LoadConfig(path string, cfg *fabric.Config) error { return LoadStrict(path, cfg) }

// LoadStrict is LoadConfig for any config struct v points to (the flow
// engine's among them).
func LoadStrict(path string, v any) error {
	if path == "" {
		return errors.New("empty path")
	}
	f, err := openRegular(path, maxFileBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(limitReader(f, maxFileBytes))
	if err != nil {
		return err
	}
	if err := DecodeStrict(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// DecodeConfig decodes YAML into cfg (keys it does not name keep their
// value). What the config cannot hold is refused before anything is
// decoded, as KeyProblems naming each key path as written, its line and
// what is wrong: unknown keys (with the closest allowed key), values of
// the wrong type, repeated keys, nesting deeper than 64 levels. A second
// YAML document is an error too.
func DecodeConfig(data []byte, cfg *fabric.Config) error { return DecodeStrict(data, cfg) }

// DecodeStrict is DecodeConfig for any config struct v points to.
func DecodeStrict(data []byte, v any) error {
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

// limitReader reads at most limit bytes, then fails: a file that grows
// while it is read is not read without bound.
func limitReader(r io.Reader, limit int64) io.Reader {
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
