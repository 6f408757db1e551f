// Package strictyaml reads the YAML files of opasim's configs strictly:
// a key the target struct does not have, a value of the wrong type, a
// repeated key, nesting deeper than 64 levels, a tab in the indentation or
// a second document is refused before anything is decoded, each problem
// naming the key path as the file writes it, its line, and (for an unknown
// key) the closest allowed one. Files are read only if they are regular
// and within a size limit. The cycle-level run config (sim.LoadConfig),
// the flow-level config and the DTable files all go through it.
package strictyaml
