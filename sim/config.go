package sim

import (
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/strictyaml"
)

// LoadConfig decodes the YAML file path over cfg (keys it does not name
// keep their value), strictly (package strictyaml): unknown keys, values
// of the wrong type and a second YAML document are errors, as are a file
// that is not a regular file or is larger than 1 MiB.
func LoadConfig(path string, cfg *fabric.Config) error { return strictyaml.Load(path, cfg) }

// DecodeConfig decodes YAML into cfg (keys it does not name keep their
// value), strictly (strictyaml.Decode): what the config cannot hold is
// refused before anything is decoded, naming each key path, its line and
// what is wrong.
func DecodeConfig(data []byte, cfg *fabric.Config) error { return strictyaml.Decode(data, cfg) }

// KeyProblems lists what a config file says that the config cannot hold
// (strictyaml.KeyProblems).
type KeyProblems = strictyaml.KeyProblems
