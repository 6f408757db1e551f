// Package configdoc renders the keys of a YAML config struct with their
// defaults as Markdown: every key path (nested structs joined by dots,
// the entries of a list of structs as `key[].field`), its kind, and the
// value the default config gives it. A list of structs also gets a table
// of its default entries. The keys are read from the struct's yaml tags
// by reflection, so a key added, renamed or given another default changes
// the page.
//
// Keys returns the same paths, for a test that hand-written docs name
// every key.
package configdoc

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Key is one config key: its path, its kind as YAML sees it, and its
// default.
type Key struct {
	Path, Kind, Default string
}

// Keys lists the keys of def (a struct), in field order, with def's values
// as their defaults. A list of structs gives its element's keys as
// `path[].field`, with "per entry" as the default.
func Keys(def any) []Key {
	var out []Key
	walk(reflect.ValueOf(def), "", false, &out)
	return out
}

// fields calls fn for each exported field of struct v that has a YAML
// key, with the key's dotted path below prefix, the field and its value.
func fields(v reflect.Value, prefix string, fn func(path string, f reflect.StructField, fv reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		fn(path, f, v.Field(i))
	}
}

func walk(v reflect.Value, prefix string, perEntry bool, out *[]Key) {
	fields(v, prefix, func(path string, f reflect.StructField, fv reflect.Value) {
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			walk(fv, path, perEntry, out)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			*out = append(*out, Key{Path: path, Kind: "list of maps", Default: entries(fv, perEntry)})
			walk(reflect.Zero(ft.Elem()), path+"[]", true, out)
		default:
			def := "per entry"
			if !perEntry {
				def = format(fv)
			}
			*out = append(*out, Key{Path: path, Kind: kind(ft), Default: def})
		}
	})
}

func entries(v reflect.Value, perEntry bool) string {
	if perEntry {
		return "per entry"
	}
	if v.Len() == 0 {
		return "none"
	}
	return fmt.Sprintf("%d entries (below)", v.Len())
}

// kind names a Go type as YAML sees it.
func kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Pointer:
		return kind(t.Elem())
	case reflect.Slice, reflect.Array:
		return "list of " + plural(t.Elem())
	case reflect.Map:
		return "map of " + kind(t.Key()) + " to " + kind(t.Elem())
	case reflect.Struct:
		return "map"
	}
	return t.Kind().String()
}

// plural names many values of type t: "integers", "lists of numbers".
func plural(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return plural(t.Elem())
	case reflect.Slice, reflect.Array:
		return "lists of " + plural(t.Elem())
	case reflect.Map, reflect.Struct:
		return "maps"
	}
	return kind(t) + "s"
}

// format writes a default value as YAML would, but for the absent.
func format(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "absent"
		}
		return format(v.Elem())
	case reflect.String:
		if v.String() == "" {
			return `""`
		}
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() || v.Len() == 0 {
			return "[]"
		}
		parts := make([]string, v.Len())
		for i := range v.Len() {
			parts[i] = format(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Map:
		if v.Len() == 0 {
			return "{}"
		}
		keys := v.MapKeys()
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = format(k) + ": " + format(v.MapIndex(k))
		}
		slices.Sort(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

// Render is the page of def's keys: a title and intro, the table of
// every key, and for each list of structs with default entries a table of
// them.
func Render(def any, title, intro string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", title, strings.TrimSpace(intro))
	b.WriteString("| key | kind | default |\n|---|---|---|\n")
	for _, k := range Keys(def) {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Path, k.Kind, cell(k.Default))
	}
	lists(&b, reflect.ValueOf(def), "")
	return bytes.TrimRight(b.Bytes(), "\n")
}

// lists writes a table of the default entries of every list of structs.
func lists(b *bytes.Buffer, v reflect.Value, prefix string) {
	fields(v, prefix, func(path string, f reflect.StructField, fv reflect.Value) {
		switch {
		case f.Type.Kind() == reflect.Struct:
			lists(b, fv, path)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && fv.Len() > 0:
			et := f.Type.Elem()
			var cols []int
			var heads []string
			for j := range et.NumField() {
				n, _, _ := strings.Cut(et.Field(j).Tag.Get("yaml"), ",")
				if n != "" && n != "-" && et.Field(j).IsExported() {
					cols = append(cols, j)
					heads = append(heads, "`"+n+"`")
				}
			}
			fmt.Fprintf(b, "\nThe default entries of `%s`:\n\n| %s |\n|%s\n", path, strings.Join(heads, " | "), strings.Repeat("---|", len(cols)))
			for e := range fv.Len() {
				row := make([]string, len(cols))
				for c, j := range cols {
					row[c] = cell(format(fv.Index(e).Field(j)))
				}
				fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
			}
		}
	})
}

// cell makes s safe inside a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
